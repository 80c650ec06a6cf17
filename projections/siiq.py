"""SI-IQ folded from the ledger: the latest inputs and the calibration in force (SI-IQ section
3: between calibrations the parameters are frozen; a rejected one leaves the last accepted), and
what section 8's guards decided: the published values (the index's inputs once the updates run
it), holds, frozen benchmarks, sources whose last data is kept, halts, notices, publications,
the daily archive of inputs (section 11's history) and the method's version."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.events import (
    BenchmarkFrozen,
    BenchmarkUnfrozen,
    CalibrationAccepted,
    CalibrationRejected,
    HoldConfirmed,
    HoldObserved,
    HoldReleased,
    OperatorNotified,
    PublicationHalted,
    PublishedValue,
    RevisionApproved,
    RevisionAttempted,
    RevisionObserved,
    SiiqInputsRecorded,
    SiiqPublished,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    SourceDataAccepted,
    SourceDataKept,
    SourceUsed,
    ValueHeld,
    ValuesPublished,
)
from domain.siiq import METHOD_VERSION
from domain.siiq.attributions import attributions, sources_of
from domain.siiq.cadence import hourly_run
from domain.siiq.guards import Seen
from domain.siiq.index import IndexDocument, build_index
from domain.siiq.records import Benchmark, CalibrationSummary, Result
from domain.siiq.versions import bump, major
from domain.state.authority import authorized, fold_authority
from domain.state.records import Authority
from ledger.actions import SIGNATURES
from ledger.ledger import RecordedEvent

PUBLICATION_HOLD = "publication"
"""The hold a signed `release_hold` names to let a halted publication through (section 8)."""


class Hold(msgspec.Struct, kw_only=True):
    held: ValueHeld
    history: list[Seen]
    latest: PublishedValue | None
    notified: bool = False


class Freeze(msgspec.Struct, kw_only=True):
    frozen: BenchmarkFrozen
    observed: list[RevisionObserved] = []
    last_attempt: datetime | None = None
    approved: RevisionApproved | None = None
    notified: bool = False


class Guards(msgspec.Struct, kw_only=True):
    values: dict[str, PublishedValue] = {}
    holds: dict[str, Hold] = {}
    frozen: dict[str, Freeze] = {}
    kept: dict[str, list[SourceDataKept]] = {}
    failures: dict[str, SourceDataKept] = {}
    used: dict[str, SourceUsed] = {}
    """Per source, the snapshot the guards last let in."""
    seen: dict[str, list[Seen]] = {}
    """Per source, the distinct snapshots the updates used, when first used (no value)."""
    missing: dict[str, datetime] = {}
    definitions: dict[str, Benchmark] = {}
    notices: list[OperatorNotified] = []
    halted: SiiqUpdateHalted | None = None
    publication_halt: PublicationHalted | None = None
    halt_runs: int = 0
    """The hourly runs the publication has been halted for (section 8's six)."""
    halt_hour: datetime | None = None
    """When the last of those runs was counted."""
    publication_released: bool = False
    last_run: datetime | None = None
    publications: list[int] = []
    """Positions of SiiqPublished events: a publication's documents are as of the one before."""
    changed_since_publication: list[str] = []
    recalibrated_since_publication: bool = False
    days: dict[str, dict[str, Result]] = {}
    recheck: bool = False
    """A benchmark was unfrozen: the next update reads the export again even if unchanged, so
    results added while it was frozen are checked the usual way."""
    published_scores: dict[str, tuple[bool, float]] = {}
    """The last published index: each model's (ranked, SI-IQ)."""


class Siiq(msgspec.Struct, kw_only=True):
    inputs: SiiqInputsRecorded | None = None
    in_force: CalibrationAccepted | None = None
    last_rejected: CalibrationRejected | None = None
    last_decision: CalibrationAccepted | CalibrationRejected | None = None
    version: str = METHOD_VERSION
    inputs_at: int = 0
    """The position of `inputs`."""
    accepted_inputs: SiiqInputsRecorded | None = None
    """The inputs the calibration in force was accepted with: a rejected calibration's inputs
    never become the index's (section 3: the version before stays in force)."""
    majors: dict[str, int] = {}
    """Section 11: where each major version after the first began (by its number): its
    calibration's position, or that of the inputs recorded with it (the index changes from
    there)."""
    major_since: datetime | None = None
    """When the calibration that began the major version in force was recorded (section 4:
    at most one major version a year)."""
    guards: Guards = msgspec.field(default_factory=Guards)
    authority: Authority = msgspec.field(default_factory=Authority)
    """Who may release a hold or approve a revision (ARCHITECTURE.md, "Authority")."""


class SiiqProjection:
    name = "siiq.v8"
    model_type = Siiq

    def initial(self) -> Siiq:
        return Siiq()

    def apply(self, model: Siiq, recorded: RecordedEvent) -> Siiq:
        guards = model.guards
        match recorded.event:
            case SiiqInputsRecorded() as inputs:
                model.inputs, model.inputs_at = inputs, recorded.position
            case CalibrationAccepted() as accepted:
                model.in_force = model.last_decision = accepted
                model.accepted_inputs = model.inputs
                if major(accepted.calibration.version) != major(model.version):
                    with_inputs = model.inputs_at == recorded.position - 1
                    start = model.inputs_at if with_inputs else recorded.position
                    model.majors[str(major(accepted.calibration.version))] = start
                if model.major_since is None or major(accepted.calibration.version) != major(
                    model.version
                ):
                    model.major_since = accepted.at or recorded.recorded_at
                model.version = accepted.calibration.version
                guards.recalibrated_since_publication = True
            case CalibrationRejected() as rejected:
                model.last_rejected = model.last_decision = rejected
            case ValuesPublished() as published:
                _publish(model, published)
            case _ if not _decided(model, recorded):
                _guard(guards, recorded)
        return model


def _publish(model: Siiq, published: ValuesPublished) -> None:
    guards = model.guards
    for value in published.values:
        guards.values[value.key] = value
        guards.missing.pop(value.key, None)
    for key in [*published.removed, *published.purged]:
        guards.values.pop(key, None)
        guards.missing.pop(key, None)
    for archived in guards.days.values():
        for key in published.purged:
            archived.pop(key, None)
    changed = {v.result.model for v in published.values}
    changed |= {key.split("|", 1)[1] for key in [*published.removed, *published.purged]}
    guards.changed_since_publication = sorted(set(guards.changed_since_publication) | changed)
    if published.correction:
        model.version = bump(model.version, "patch")
    guards.days[published.at.date().isoformat()] = {k: v.result for k, v in guards.values.items()}


def _guard(guards: Guards, recorded: RecordedEvent) -> None:  # noqa: PLR0912
    match recorded.event:
        case SiiqUpdateRan() as ran:
            _ran(guards, ran)
        case SiiqUpdateHalted() as halted:
            guards.halted = halted
        case ValueHeld() as held:
            before = [
                s for s in guards.seen.get(held.candidate.source, []) if s.snapshot != held.snapshot
            ]
            seen = [Seen(s.snapshot, s.first_seen, held.published) for s in before[-1:]]
            seen.append(Seen(held.snapshot, held.since, held.value))
            guards.holds[held.hold] = Hold(held=held, history=seen, latest=held.candidate)
        case HoldObserved() as observed if observed.hold in guards.holds:
            hold = guards.holds[observed.hold]
            hold.history.append(Seen(observed.snapshot, observed.first_seen, observed.value))
            hold.latest = observed.candidate
        case HoldConfirmed() as confirmed:
            guards.holds.pop(confirmed.hold, None)
        case SourceDataKept() as kept:
            guards.kept.setdefault(kept.source, []).append(kept)
            guards.failures[kept.source] = kept
        case SourceDataAccepted() as accepted:
            guards.kept.pop(accepted.source, None)
            guards.failures.pop(accepted.source, None)
        case BenchmarkFrozen() as frozen:
            guards.frozen[frozen.benchmark] = Freeze(frozen=frozen)
        case RevisionObserved() as observed if observed.benchmark in guards.frozen:
            guards.frozen[observed.benchmark].observed.append(observed)
        case RevisionAttempted() as attempted if attempted.benchmark in guards.frozen:
            guards.frozen[attempted.benchmark].last_attempt = attempted.at
        case BenchmarkUnfrozen() as unfrozen:
            guards.frozen.pop(unfrozen.benchmark, None)
            guards.recheck = True
        case OperatorNotified() as notice:
            guards.notices.append(notice)
            if notice.subject in guards.holds:
                guards.holds[notice.subject].notified = True
            if notice.subject in guards.frozen:
                guards.frozen[notice.subject].notified = True
        case PublicationHalted() as halt:
            guards.publication_halt = halt
            if hourly_run(guards.halt_hour, halt.at):
                guards.halt_runs, guards.halt_hour = guards.halt_runs + 1, halt.at
        case SiiqPublished() as published:
            _published(guards, recorded.position)
            ranked = set(published.ranked)
            guards.published_scores = {s: (s in ranked, v) for s, v in published.scores.items()}


def open_holds(guards: Guards) -> set[str]:
    """The holds a signed `release_hold` may name: each held value, and a halted publication
    until it is released."""
    halted = guards.publication_halt is not None and not guards.publication_released
    return {*guards.holds, *[PUBLICATION_HOLD] * halted}


def _decided(model: Siiq, recorded: RecordedEvent) -> bool:
    """Who may decide, and a release or a revision (SI-IQ section 8) decided by an action with
    authority; whether the event was one of them."""
    guards, authority, position = model.guards, model.authority, recorded.position
    if fold_authority(authority, position, recorded.event, recorded.recorded_at, SIGNATURES):
        return True
    match recorded.event:
        case HoldReleased() as released if authorized(authority, position, released):
            if released.hold in open_holds(guards):
                _release(guards, released.hold)
        case RevisionApproved() as approved if authorized(authority, position, approved):
            if approved.benchmark in guards.frozen:
                guards.frozen[approved.benchmark].approved = approved
        case _:
            return False
    return True


def _ran(guards: Guards, ran: SiiqUpdateRan) -> None:
    guards.halted, guards.last_run = None, ran.at
    guards.used |= {u.source: u for u in ran.used}
    guards.definitions |= {b.benchmark: b for b in ran.definitions}
    if ran.missing is not None:
        guards.missing = {k: guards.missing.get(k, ran.at) for k in ran.missing}
        guards.recheck = False
    for source, snapshot in ran.snapshots.items():
        seen = guards.seen.setdefault(source, [])
        if not seen or seen[-1].snapshot != snapshot:
            seen.append(Seen(snapshot, ran.at, None))


def _published(guards: Guards, position: int) -> None:
    guards.publications.append(position)
    guards.publication_halt, guards.halt_runs, guards.halt_hour = None, 0, None
    guards.publication_released = False
    guards.changed_since_publication = []
    guards.recalibrated_since_publication = False


def _release(guards: Guards, hold: str) -> None:
    """A signed `release_hold`: a held value is published as last seen; the publication hold
    lets the next publication through its check."""
    if hold == PUBLICATION_HOLD:
        guards.publication_released = guards.publication_halt is not None
        return
    released = guards.holds.pop(hold, None)
    if released is not None and released.latest is not None:
        guards.values[released.latest.key] = released.latest


def published_results(state: Siiq) -> list[Result]:
    """The index's inputs: the updates' published values once there are any, else the inputs
    of the last calibration from files."""
    if state.guards.values:
        return [state.guards.values[k].result for k in sorted(state.guards.values)]
    return state.accepted_inputs.results if state.accepted_inputs is not None else []


NO_CALIBRATION = CalibrationSummary(
    accepted=False,
    reason="no calibration has been accepted yet",
    version=METHOD_VERSION,
    shift=None,
    scale=None,
    kappa=None,
    folds=0,
    pairs=0,
    reference=[],
    fitted_models=[],
    benchmarks=[],
)


def index_document(state: Siiq, as_of: int) -> IndexDocument:
    """/data/index.json: the published inputs scored with the calibration in force, with the
    method's version (section 11), the attributions of section 10 and, when the latest
    calibration was rejected, why (section 3)."""
    decision = state.last_decision
    rejected = decision.calibration.reason if isinstance(decision, CalibrationRejected) else None
    if state.in_force is None or (state.accepted_inputs is None and not state.guards.values):
        return IndexDocument(
            version=state.version, calibration=NO_CALIBRATION, models=[], rejected=rejected
        )
    document = build_index(published_results(state), state.in_force.calibration)
    if state.guards.values:
        credited = attributions(v.source for v in state.guards.values.values())
    else:
        accepted = state.accepted_inputs
        credited = attributions(sources_of(accepted.inputs if accepted else {}))
    return msgspec.structs.replace(
        document,
        version=state.version,
        attributions=credited,
        rejected=rejected,
        conversion=state.in_force.conversion,
    )
