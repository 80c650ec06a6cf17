"""`siiq update`: from the latest snapshots to a published index, through SI-IQ section 8's
guards (every transition an event) and section 3's and 11's calibrations and versions.

One run, at an injected time: halt when the checker is unset or down; per source, keep its last
data on a format change or a sudden loss of rows (the shrunk-file rule lets a smaller file in
after 24 hours); for Epoch AI's export, the values the index reads: definitions and revisions
freeze a benchmark, new and changed numbers are cross-checked, then published or held; held
values are observed in each new snapshot until one confirms them; deletions are removed after
six hours; a revision moves in one step with a recalibration; notices after 3 and 7 days; the
first calibration and the monthly one; then the publication (`publish`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

import msgspec

from api.services.ports import CrossChecking
from api.services.queries import SiiqQueries
from api.services.siiq_publication import PublishReport, SiteCheck, publish_siiq
from api.services.sources import SourcesQueries
from domain.events import (
    BenchmarkFrozen,
    BenchmarkUnfrozen,
    CalibrationAccepted,
    CalibrationRejected,
    CrossCheck,
    CrossCheckRejected,
    DomainEvent,
    HoldConfirmed,
    HoldObserved,
    OperatorNotified,
    PublishedValue,
    RevisionAttempted,
    RevisionObserved,
    SiiqInputsRecorded,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    SourceDataAccepted,
    SourceDataKept,
    SourceUsed,
    TableSummary,
    ValueHeld,
    ValuesPublished,
    value_key,
)
from domain.siiq import guards as rules
from domain.siiq.benchmark_sources import BENCHMARKS, INDEX_SOURCES, other_run, row_identity
from domain.siiq.crosscheck import Claim, CrossCheckUnavailable, claim_of, confirmed
from domain.siiq.data import Observations, select
from domain.siiq.guards import Seen, TableShape
from domain.siiq.index import IndexDocument, build_index, calibrated_parameters, run_calibration
from domain.siiq.intake import Intake
from domain.siiq.matching import EPOCH
from domain.siiq.recalibration import recalibration_problem
from domain.siiq.records import CalibrationSummary, Result
from domain.siiq.reference_group import REFERENCE_GROUP
from domain.siiq.versions import calibration_version, structural_change
from ledger.ledger import Ledger
from projections.siiq import Guards, Hold, Siiq, published_results
from projections.siiq_sources import Sources, current_intake, good_snapshots
from projections.views.siiq_publication import HoldRow, NoticeRow, holds, notices

NO_DATA = "no good Epoch AI snapshot yet: run `argusic sources fetch` first"
NO_CHECKER = "no cross-check service is configured (ARGUSIC_CROSSCHECK_URL)"
LEADER = "new leader"


class UpdateReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq update --json`: what one update did."""

    calibrated: bool
    reason: str | None
    inputs: dict[str, str]
    calibration: CalibrationSummary | None
    halted: bool = False
    published: int = 0
    removed: int = 0
    held: list[str] = []
    confirmed: list[str] = []
    frozen: list[str] = []
    kept: list[str] = []
    notices: list[str] = []
    publication: PublishReport | None = None


def snapshot_inputs(state: Sources) -> dict[str, str]:
    """What a calibration from the snapshots was computed from, by SHA-256: each file in use of
    every source the index reads, the reference group and the approved aliases
    (SiiqInputsRecorded.inputs)."""
    found = {
        f"{s.source} {s.address}": s.sha256
        for source in sorted(INDEX_SOURCES)
        for s in good_snapshots(state, source)
    }
    found["reference"] = hashlib.sha256("\n".join(REFERENCE_GROUP).encode()).hexdigest()
    found["aliases"] = hashlib.sha256(msgspec.json.encode(state.aliases)).hexdigest()
    return found


def calibration_from(
    results: Sequence[Result], intake: Intake, inputs: dict[str, str]
) -> tuple[CalibrationSummary, SiiqInputsRecorded]:
    """Section 3 on these results (the published ones, for a recalibration)."""
    selection = select(results, intake.benchmarks)
    obs = Observations.build(selection.results, selection.benchmarks)
    invalid = set(selection.invalid_benchmarks)
    summary = run_calibration(obs, intake.benchmarks, invalid, list(REFERENCE_GROUP))
    recorded = SiiqInputsRecorded(
        inputs=inputs,
        results=selection.results,
        benchmarks=selection.benchmarks,
        reference=list(REFERENCE_GROUP),
        ignored_rows=dict(sorted((intake.left_out | selection.ignored_rows).items())),
        invalid_benchmarks=selection.invalid_benchmarks,
    )
    return summary, recorded


class Run:
    """One update: the state it read, the time it runs at, and the events it decides, in order."""

    def __init__(self, ledger: Ledger, now: datetime) -> None:
        self.ledger = ledger
        self.now = now
        self.sources = SourcesQueries(ledger).latest()
        self.queries = SiiqQueries(ledger)
        self.siiq: Siiq = self.queries.reader.latest()
        self.guards: Guards = self.siiq.guards
        self.events: list[DomainEvent] = []
        self.later: list[DomainEvent] = []
        """Calibration events that follow the published values (a revision's)."""
        self.publish: dict[str, PublishedValue] = {}
        self.removed: set[str] = set()
        self.purged: set[str] = set()
        """Published values whose source name now matches another model (section 8)."""
        self.correction = False
        self.observed: dict[str, tuple[Seen, PublishedValue | None]] = {}
        self.revised: dict[str, RevisionObserved] = {}
        self.frozen_now: set[str] = set()
        self.snapshot = ""
        self._candidates: dict[str, PublishedValue] | None = None
        self._intake: tuple[Intake | None] | None = None
        self.report = UpdateReport(calibrated=False, reason=None, inputs={}, calibration=None)

    def note(self, **changes: object) -> None:
        self.report = msgspec.structs.replace(self.report, **changes)

    def candidates(self) -> dict[str, PublishedValue]:
        """The values Epoch AI's current export gives, the best row per result (decision A1)."""
        if self._candidates is None:
            intake = self.intake()
            found: dict[str, PublishedValue] = {}
            for result, line in zip(
                intake.results if intake else [], intake.evidence if intake else [], strict=True
            ):
                key = value_key(result.model, result.benchmark)
                if key not in found or result.score > found[key].result.score:
                    found[key] = PublishedValue(
                        result=result,
                        row=line.row,
                        url=line.url,
                        sha256=line.sha256,
                        source=line.source,
                        file=line.file,
                        columns=list(line.row),
                    )
            self._candidates = found
        return self._candidates

    def intake(self) -> Intake | None:
        """The current Epoch AI export's inputs, read once a run."""
        if self._intake is None:
            self._intake = (current_intake(self.sources),)
        return self._intake[0]

    def published(self) -> dict[str, PublishedValue]:
        return self.guards.values


def update_siiq(
    ledger: Ledger, checker: CrossChecking | None, now: datetime, site: SiteCheck | None = None
) -> UpdateReport:
    """Section 8, one update over the latest snapshots (see the module's docstring)."""
    run = Run(ledger, now)
    if checker is None:
        return _halt(run, NO_CHECKER)
    current = _snapshots(run.sources)
    if EPOCH not in current:
        return msgspec.structs.replace(run.report, reason=NO_DATA)
    used, uses = _source_guards(run, current)
    run.snapshot = used[EPOCH]
    new_epoch = any(u.source in INDEX_SOURCES for u in uses) or run.guards.recheck
    try:
        checks = _values(run, checker) if new_epoch else []
    except CrossCheckUnavailable as down:
        return _halt(run, str(down))
    _removals(run)
    _holds(run)
    _revisions(run)
    intake = run.intake() if new_epoch else None
    ran = SiiqUpdateRan(
        at=now,
        snapshots=used,
        checker=checker.name,
        checks=checks,
        used=uses,
        definitions=intake.benchmarks if intake else [],
        missing=sorted(_missing(run)) if new_epoch else None,
    )
    events = [ran, *run.events]
    if run.publish or run.removed or run.purged:
        events.append(
            ValuesPublished(
                at=now,
                values=[run.publish[k] for k in sorted(run.publish)],
                removed=sorted(run.removed - run.purged),
                correction=run.correction or bool(run.purged),
                purged=sorted(run.purged),
            )
        )
    ledger.append(ledger.next_versions([*events, *run.later]))
    _calibrations(run)
    publication = publish_siiq(ledger, now, run.queries, site)
    return msgspec.structs.replace(
        run.report,
        published=len(run.publish),
        removed=len(run.removed | run.purged),
        frozen=sorted(run.frozen_now),
        publication=publication,
    )


def _halt(run: Run, reason: str) -> UpdateReport:
    """Section 8: the whole update stops and the previous version stays online; the operator
    is told once for each halt."""
    events: list[DomainEvent] = [SiiqUpdateHalted(at=run.now, reason=reason)]
    if run.guards.halted is None:
        events.append(OperatorNotified(at=run.now, subject="update", message=f"halted: {reason}"))
    run.ledger.append(run.ledger.next_versions(events))
    return msgspec.structs.replace(run.report, halted=True, reason=reason)


def _snapshots(sources: Sources) -> dict[str, str]:
    """Each source's current good data, named by its files' SHA-256s; Epoch AI's also by the
    approved aliases, since a re-matched name changes the values its files give."""
    found = {}
    for source in sorted({a.source for a in sources.addresses.values()}):
        good = good_snapshots(sources, source)
        if good:
            found[source] = "+".join(s.sha256 for s in good)
    if EPOCH in found and sources.aliases:
        digest = hashlib.sha256(msgspec.json.encode(sources.aliases)).hexdigest()
        found[EPOCH] += f"~aliases:{digest[:16]}"
    return found


def _shapes(sources: Sources, source: str) -> list[TableSummary]:
    return [
        msgspec.structs.replace(t, name=f"{s.address}#{t.name}")
        for s in good_snapshots(sources, source)
        for t in s.tables
    ]


def _shape(tables: Sequence[TableSummary]) -> list[TableShape]:
    return [TableShape(t.name, t.rows, tuple(t.columns)) for t in tables]


BENCHMARK_TABLES = {s.table for s in BENCHMARKS.values()}


def _keep_ratio(run: Run, source: str, tables: Sequence[TableSummary]) -> float:
    """The share of a file's rows the parser keeps: for Epoch AI, the rows read as results of
    its benchmark tables' rows; every row for a source the index does not read."""
    if source != EPOCH:
        return 1.0
    intake = run.intake()
    rows = sum(t.rows for t in tables if t.name.rsplit("#", 1)[-1] in BENCHMARK_TABLES)
    kept = sum(line.source == EPOCH for line in intake.evidence) if intake else 0
    return 1.0 if intake is None or rows == 0 else kept / rows


def _source_guards(run: Run, current: Mapping[str, str]) -> tuple[dict[str, str], list[SourceUsed]]:
    """Section 8, per source: a new snapshot that changed format or lost more than 30% of its
    rows (of the source, or of one benchmark's table) keeps the last data, shown in
    /status.json; a shrunk file is let in once every file of 24 hours was as small with the
    same share kept. Returns the snapshot used per source and the newly let in ones."""
    used: dict[str, str] = {}
    uses: list[SourceUsed] = []
    for source, snapshot in current.items():
        before = run.guards.used.get(source)
        kept = run.guards.kept.get(source, [])
        tables = _shapes(run.sources, source)
        if before is not None and snapshot == before.snapshot:
            used[source] = snapshot
            if kept:
                run.events.append(_accepted(run, source, snapshot, "the last good file again"))
            continue
        ratio = _keep_ratio(run, source, tables)
        problem = None if before is None else _shape_problem(source, before, tables)
        if (
            problem is not None
            and problem[0] == "rows"
            and _shrink_passes(run, before, kept, tables, ratio)
        ):
            reason = "a smaller file for 24 hours with the same share of rows kept"
            run.events.append(_accepted(run, source, snapshot, reason))
            problem = None
        elif problem is None and kept:
            run.events.append(_accepted(run, source, snapshot, "good data again"))
        if problem is None:
            used[source] = snapshot
            uses.append(
                SourceUsed(source=source, snapshot=snapshot, tables=tables, keep_ratio=ratio)
            )
            continue
        assert before is not None
        used[source] = before.snapshot
        if not kept or kept[-1].snapshot != snapshot or kept[-1].reason != problem[1]:
            run.events.append(
                SourceDataKept(
                    at=run.now,
                    source=source,
                    snapshot=snapshot,
                    kind=problem[0],
                    reason=problem[1],
                    keep_ratio=ratio,
                    rows=sum(t.rows for t in tables),
                )
            )
        run.note(kept=[*run.report.kept, source])
    return used, uses


def _accepted(run: Run, source: str, snapshot: str, reason: str) -> SourceDataAccepted:
    return SourceDataAccepted(at=run.now, source=source, snapshot=snapshot, reason=reason)


def _shape_problem(
    source: str, before: SourceUsed, tables: Sequence[TableSummary]
) -> tuple[Literal["format", "rows"], str] | None:
    old, new = _shape(before.tables), _shape(tables)
    changed = rules.format_change(old, new)
    if changed is not None:
        return "format", f"format changed: {changed}"
    rows_now = {t.name: t.rows for t in new}
    per_table = {
        t.name: (t.rows, rows_now.get(t.name, 0))
        for t in old
        if source != EPOCH or t.name.rsplit("#", 1)[-1] in BENCHMARK_TABLES
    }
    lost = rules.row_loss(old, new, per_table)
    return None if lost is None else ("rows", lost)


def _shrink_passes(
    run: Run,
    before: SourceUsed | None,
    kept: Sequence[SourceDataKept],
    tables: Sequence[TableSummary],
    ratio: float,
) -> bool:
    """Section 8's shrunk-file rule over the files kept out since the first smaller one."""
    shrunk = [k for k in kept if k.kind == "rows"]
    if before is None or not shrunk:
        return False
    rows = sum(t.rows for t in tables)
    return rules.shrink_accepted(
        before.keep_ratio,
        [*(k.keep_ratio or 0.0 for k in shrunk), ratio],
        since=shrunk[0].at,
        now=run.now,
        rows_since=[*(k.rows for k in shrunk), rows],
    )


def _claim(value: PublishedValue) -> Claim:
    result = value.result
    identity = row_identity(result.benchmark, value.row)
    return claim_of(
        result.model, result.benchmark, value.row, BENCHMARKS[result.benchmark].column, identity
    )


def _check(
    run: Run, checker: CrossChecking, values: Sequence[PublishedValue]
) -> tuple[list[CrossCheck], list[PublishedValue]]:
    """Section 8: every new or changed number re-read in its row by the checker; the refused
    ones are recorded and left out. Returns every answer and the confirmed values."""
    answers = checker.ask([_claim(v) for v in values]) if values else []
    checks, passed = [], []
    for value, answer in zip(values, answers, strict=True):
        ok = confirmed(answer)
        r = value.result
        checks.append(
            CrossCheck(
                model=r.model, benchmark=r.benchmark, value=r.score, confirmed=ok, answer=answer
            )
        )
        if ok:
            passed.append(value)
        else:
            run.events.append(
                CrossCheckRejected(
                    at=run.now, model=r.model, benchmark=r.benchmark, value=r.score, answer=answer
                )
            )
    return checks, passed


def _values(run: Run, checker: CrossChecking) -> list[CrossCheck]:
    """Section 8 on a newly used Epoch AI snapshot: changed definitions and revisions freeze
    their benchmark; held values are observed; new and changed numbers of the other
    benchmarks are cross-checked, then held or published; the new-leader guard last."""
    candidates, published = run.candidates(), run.published()
    intake = run.intake()
    definitions = {b.benchmark: b for b in intake.benchmarks} if intake else {}
    for name, new in sorted(definitions.items()):
        old = run.guards.definitions.get(name)
        changed = None if old is None else rules.definition_changed(old, new)
        if changed is not None and name not in run.guards.frozen:
            _freeze(run, name, "definition", f"definition changed: {changed}")
    by_benchmark: dict[str, list[str]] = {}
    for key, value in published.items():
        by_benchmark.setdefault(value.result.benchmark, []).append(key)
    moved = {
        name: [
            k
            for k in keys
            if k in candidates
            and rules.moved(published[k].result.score, candidates[k].result.score)
        ]
        for name, keys in by_benchmark.items()
    }
    for name, keys in sorted(by_benchmark.items()):
        frozen = name in run.guards.frozen or name in run.frozen_now
        if not frozen and rules.is_revision(len(keys), len(moved[name])):
            _freeze(
                run,
                name,
                "revision",
                f"{len(moved[name])} of {len(keys)} results moved by more than half a point",
            )
    checks: list[CrossCheck] = []
    revising = {
        e.benchmark for e in run.events if isinstance(e, BenchmarkFrozen) and e.kind == "revision"
    }
    revising |= {n for n, f in run.guards.frozen.items() if f.frozen.kind == "revision"}
    for name in sorted(revising):
        checks += _observe_revision(run, checker, name, moved.get(name, []))
    held_keys = {h.held.candidate.key: h for h in run.guards.holds.values()}
    for hold in run.guards.holds.values():
        found = candidates.get(hold.held.candidate.key)
        seen = Seen(run.snapshot, run.now, None if found is None else found.result.score)
        run.observed[hold.held.hold] = (seen, found)
        run.events.append(
            HoldObserved(
                hold=hold.held.hold,
                snapshot=run.snapshot,
                first_seen=run.now,
                value=seen.value,
                candidate=found,
            )
        )
    _rematched(run)
    frozen_names = run.frozen_now | set(run.guards.frozen)
    changes = [
        v
        for k, v in sorted(candidates.items())
        if v.result.benchmark not in frozen_names
        and k not in held_keys
        and (k not in published or published[k].result.score != v.result.score)
    ]
    answered, passed = _check(run, checker, changes)
    checks += answered
    _hold_or_publish(run, passed)
    return checks


def _freeze(run: Run, name: str, kind: Literal["definition", "revision"], reason: str) -> None:
    run.frozen_now.add(name)
    run.events.append(
        BenchmarkFrozen(benchmark=name, at=run.now, kind=kind, reason=reason, snapshot=run.snapshot)
    )


def _observe_revision(
    run: Run, checker: CrossChecking, name: str, moved: Sequence[str]
) -> list[CrossCheck]:
    """A revised benchmark in this snapshot: the values of its revision (those that moved now
    or before), each new number cross-checked once."""
    candidates = run.candidates()
    freeze = run.guards.frozen.get(name)
    before = freeze.observed if freeze else []
    keys = set(moved) | {k for o in before for k in o.values}
    last = {k: v for o in before for k, v in o.values.items()}
    rejected_before = {k for o in before for k in o.rejected}
    fresh = [
        candidates[k]
        for k in sorted(keys)
        if k in candidates
        and last.get(k) != candidates[k].result.score
        and k not in rejected_before
    ]
    checks, _ = _check(run, checker, fresh)
    refused = {value_key(c.model, c.benchmark) for c in checks if not c.confirmed}
    values = {
        k: (candidates[k].result.score if k in candidates else None) for k in sorted(keys - refused)
    }
    observed = RevisionObserved(
        benchmark=name,
        snapshot=run.snapshot,
        first_seen=run.now,
        values=values,
        candidates=[candidates[k] for k in sorted(values) if k in candidates],
        rejected=sorted(refused),
    )
    run.revised[name] = observed
    run.events.append(observed)
    return checks


def _model_results(values: Mapping[str, PublishedValue], model: str) -> list[Result]:
    return [v.result for v in values.values() if v.result.model == model]


def _hold_or_publish(run: Run, passed: Sequence[PublishedValue]) -> None:
    """Section 8: a confirmed number that moved more than 10 points or lies more than 4 SD from
    its model's other results is held; the rest are published, unless the model would become
    the new leader."""
    published = run.published()
    calibration = run.siiq.in_force.calibration if run.siiq.in_force else None
    frozen = calibrated_parameters(calibration) if calibration else None
    fresh: list[PublishedValue] = []
    for value in passed:
        old = published.get(value.key)
        before = None if old is None else old.result.score
        z = z_before = None
        if frozen is not None:
            others = _model_results(published, value.result.model)
            z = rules.prediction_z(value.result, others, *frozen)
            z_before = None if old is None else rules.prediction_z(old.result, others, *frozen)
        reason = rules.hold_reason(before, value.result.score, z, z_before)
        if reason is not None and not rules.confirmed_by_other_run(
            value.result.score, _other_run(run, value)
        ):
            _hold(run, value, before, reason)
        else:
            fresh.append(value)
    leaders = _new_leaders(run, fresh)
    for value in fresh:
        if value.result.model in leaders:
            _hold(
                run,
                value,
                None if value.key not in published else published[value.key].result.score,
                LEADER,
                leaders[value.result.model],
            )
        else:
            _publish(run, value)


def _other_run(run: Run, value: PublishedValue) -> float | None:
    other = other_run(value.result.benchmark)
    found = run.candidates().get(value_key(value.result.model, other)) if other else None
    return None if found is None else found.result.score


def _hold(
    run: Run, value: PublishedValue, before: float | None, reason: str, si_iq: float | None = None
) -> None:
    hold = f"{value.key}@{run.now:%Y-%m-%dT%H:%MZ}"
    run.events.append(
        ValueHeld(
            hold=hold,
            model=value.result.model,
            benchmark=value.result.benchmark,
            value=value.result.score,
            published=before,
            reason=reason,
            since=run.now,
            snapshot=run.snapshot,
            candidate=value,
            si_iq=si_iq,
        )
    )
    run.note(held=[*run.report.held, hold])


def _publish(run: Run, value: PublishedValue) -> None:
    if value.key in run.published():
        run.correction = True
    run.publish[value.key] = value


def _scores(run: Run, values: Mapping[str, PublishedValue]) -> IndexDocument | None:
    calibration = run.siiq.in_force.calibration if run.siiq.in_force else None
    if calibration is None:
        return None
    return build_index([v.result for v in values.values()], calibration)


def _new_leaders(run: Run, fresh: Sequence[PublishedValue]) -> dict[str, float]:
    """Section 8's new-leader guard: models not ranked before that the fresh values would put
    more than 5 points above the current leader, with the score they would have."""
    if not fresh:
        return {}
    now = _scores(run, run.published())
    if now is None:
        return {}
    ranked = {m.slug for m in now.models if m.ranked}
    leader = max((m.si_iq_full for m in now.models if m.ranked), default=None)
    proposed = _scores(run, {**run.published(), **run.publish, **{v.key: v for v in fresh}})
    assert proposed is not None
    touched = {v.result.model for v in fresh}
    return {
        m.slug: m.si_iq_full
        for m in proposed.models
        if m.slug in touched
        and m.ranked
        and rules.overtakes_leader(m.slug in ranked, m.si_iq_full, leader)
    }


def _missing(run: Run) -> set[str]:
    """The published values of unfrozen benchmarks that the current export no longer lists."""
    candidates = run.candidates()
    frozen = run.frozen_now | set(run.guards.frozen)
    return {
        k
        for k, v in run.published().items()
        if k not in candidates and v.result.benchmark not in frozen and k not in run.purged
    }


def _identity(value: PublishedValue) -> tuple[str, str]:
    return value.result.benchmark, row_identity(value.result.benchmark, value.row)


def _rematched(run: Run) -> None:
    """Section 8: when a source's name is matched to another model, the old match goes at once,
    from the archived days too (its row now counts for the other model)."""
    now = {_identity(v): k for k, v in run.candidates().items()}
    for key, value in run.published().items():
        moved_to = now.get(_identity(value))
        if key not in run.candidates() and moved_to is not None and moved_to != key:
            run.purged.add(key)


def _removals(run: Run) -> None:
    """Section 8: a result Epoch AI deleted is removed six hours after it went (a source that
    keeps last values would keep it)."""
    missing = run.guards.missing
    for key, since in missing.items():
        value = run.published().get(key)
        if value is not None and rules.removal_due(value.source == EPOCH, since, run.now):
            run.removed.add(key)
            run.correction = True


def _history(hold: Hold, run: Run) -> list[Seen]:
    pending = run.observed.get(hold.held.hold)
    return [*hold.history, *([pending[0]] if pending else [])]


def _holds(run: Run) -> None:
    """Section 8: held values confirmed by a later snapshot (or the other run) are published,
    a new leader's only all together once its score held steady; unconfirmed after 7 days the
    operator is told."""
    leaders: dict[str, list[Hold]] = {}
    for hold in run.guards.holds.values():
        if hold.held.reason == LEADER:
            leaders.setdefault(hold.held.model, []).append(hold)
            continue
        latest = run.observed.get(hold.held.hold, (None, hold.latest))[1]
        if latest is not None and rules.confirmed_by_snapshot(
            _history(hold, run), hold.held.snapshot, run.now
        ):
            _confirm(run, hold, latest, f"snapshot {run.snapshot}")
        elif latest is not None and rules.confirmed_by_other_run(
            latest.result.score, _other_run(run, latest)
        ):
            _confirm(run, hold, latest, "the other run of the same questions")
        elif rules.notice_due(hold.held.since, run.now, rules.HOLD_NOTICE, hold.notified):
            _notice(
                run,
                hold.held.hold,
                f"{hold.held.model} on {hold.held.benchmark} held since "
                f"{hold.held.since:%Y-%m-%d %H:%M} UTC, unconfirmed after 7 days: "
                "release_hold after checking the source",
            )
    for model, group in sorted(leaders.items()):
        newest = {h.held.hold: run.observed.get(h.held.hold, (None, h.latest))[1] for h in group}
        ready = all(
            newest[h.held.hold] is not None
            and rules.confirmed_by_snapshot(_history(h, run), h.held.snapshot, run.now)
            for h in group
        )
        values = {v.key: v for v in newest.values() if v is not None}
        proposed = _scores(run, {**run.published(), **run.publish, **values})
        entry = next((m for m in proposed.models if m.slug == model), None) if proposed else None
        then = group[0].held.si_iq or 0.0
        first = min(h.held.since for h in group)
        if entry is not None and rules.leader_released(
            ready, first, run.now, entry.si_iq_full, then
        ):
            for hold in group:
                value = newest[hold.held.hold]
                assert value is not None
                _confirm(run, hold, value, f"snapshot {run.snapshot}, score steady")


def _confirm(run: Run, hold: Hold, value: PublishedValue, by: str) -> None:
    run.events.append(HoldConfirmed(hold=hold.held.hold, at=run.now, by=by))
    run.note(confirmed=[*run.report.confirmed, hold.held.hold])
    _publish(run, value)


def _notice(run: Run, subject: str, message: str) -> None:
    run.events.append(OperatorNotified(at=run.now, subject=subject, message=message))
    run.note(notices=[*run.report.notices, message])


def _revisions(run: Run) -> None:
    """Section 8: a revised benchmark moves to its new values in one step with a recalibration
    once every changed value is cross-checked and confirmed by a later snapshot (or a person
    approved the current snapshot's); a failed attempt is retried a day later; not ready after
    three days the operator is told. A changed definition waits for a person's review."""
    for name, freeze in sorted(run.guards.frozen.items()):
        if freeze.frozen.kind == "definition":
            if freeze.approved is not None:
                reason = f"definition reviewed by {freeze.approved.operator}"
                run.events.append(BenchmarkUnfrozen(benchmark=name, at=run.now, reason=reason))
            continue
        observed = [*freeze.observed, *([run.revised[name]] if name in run.revised else [])]
        if not observed:
            continue
        rejected = {k for o in observed for k in o.rejected}
        changed = {k for o in observed for k, v in o.values.items() if v is not None} - rejected
        confirmed_keys = {
            k
            for k in changed
            if rules.confirmed_by_snapshot(
                [Seen(o.snapshot, o.first_seen, o.values.get(k)) for o in observed],
                observed[0].snapshot,
                run.now,
            )
        }
        ready = rules.revision_ready(changed, confirmed_keys) or freeze.approved is not None
        if ready and rules.retry_due(freeze.last_attempt, run.now):
            _transition(run, name, observed, rejected)
        elif not ready and rules.notice_due(
            freeze.frozen.at, run.now, rules.REVISION_NOTICE, freeze.notified
        ):
            _notice(
                run,
                name,
                f"the revision of {name} is not ready after three days: "
                "approve_revision after checking the current snapshot",
            )


def _transition(
    run: Run, name: str, observed: Sequence[RevisionObserved], rejected: set[str]
) -> None:
    """The revision's values all at once, with a recalibration that must pass every check."""
    latest = {v.key: v for o in observed for v in o.candidates}
    published = {**run.published(), **run.publish}
    values = {k: latest[k] for k in latest if k not in rejected}
    after = {k: v for k, v in {**published, **values}.items() if k not in rejected}
    summary = _recalibrate(run, after)
    if isinstance(summary, str):
        run.events.append(RevisionAttempted(benchmark=name, at=run.now, reason=summary))
        return
    for value in values.values():
        _publish(run, value)
    run.removed |= rejected & set(run.published())
    run.correction = True
    run.later += [
        BenchmarkUnfrozen(benchmark=name, at=run.now, reason="moved to its revised values"),
        CalibrationAccepted(inputs=_inputs(run), calibration=summary, at=run.now),
    ]
    run.note(calibrated=True, calibration=summary)


def _inputs(run: Run) -> dict[str, str]:
    return snapshot_inputs(run.sources)


def _recalibrate(run: Run, values: Mapping[str, PublishedValue]) -> CalibrationSummary | str:
    """Section 3's recalibration on these values: the calibration, or why it is refused (its
    own rejection, the reference group changing, or the checks against the published index)."""
    intake = run.intake()
    in_force = run.siiq.in_force
    if intake is None or in_force is None:
        return "no calibration in force to recalibrate"
    results = [values[k].result for k in sorted(values)]
    summary, _ = calibration_from(results, intake, _inputs(run))
    if not summary.accepted:
        return summary.reason or "rejected"
    problem = structural_change(in_force.calibration, summary) or recalibration_problem(
        build_index(published_results(run.siiq), in_force.calibration),
        build_index(results, summary),
    )
    if problem is not None:
        return problem
    number = calibration_version(in_force.calibration, summary, run.siiq.version, "minor")
    return msgspec.structs.replace(summary, version=number)


def _calibrations(run: Run) -> None:
    """Section 3: the first calibration when none is in force (retried on each update), and
    the monthly recalibration at 06:00 UTC on the first, refused if the reference group would
    change or the checks against the published index fail (the previous stays in force)."""
    siiq = run.queries.reader.latest()
    if not siiq.guards.values:
        return
    intake = run.intake()
    assert intake is not None
    inputs = _inputs(run)
    if siiq.in_force is None:
        results = published_results(siiq)
        summary, recorded = calibration_from(results, intake, inputs)
        outcome = (CalibrationAccepted if summary.accepted else CalibrationRejected)(
            inputs=inputs, calibration=summary, at=run.now
        )
        events = [outcome] if run.ledger.stream(recorded.stream) else [recorded, outcome]
        run.ledger.append(run.ledger.next_versions(events))
        run.note(calibrated=True, calibration=summary, inputs=inputs)
        return
    last = siiq.last_decision.at if siiq.last_decision else None
    if not rules.monthly_recalibration_due(last, run.now):
        return
    run.siiq = siiq
    values = siiq.guards.values
    found = _recalibrate(run, values)
    if isinstance(found, str):
        rejected = msgspec.structs.replace(siiq.in_force.calibration, accepted=False, reason=found)
        event: DomainEvent = CalibrationRejected(inputs=inputs, calibration=rejected, at=run.now)
        run.note(calibrated=True, calibration=rejected, reason=found)
    else:
        event = CalibrationAccepted(inputs=inputs, calibration=found, at=run.now)
        run.note(calibrated=True, calibration=found)
    run.ledger.append(run.ledger.next_versions([event]))


class HoldsReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq holds --json` (ARCHITECTURE.md, Wave 2 JSON outputs), with the notices."""

    holds: list[HoldRow]
    notifications: list[NoticeRow]


def holds_report(queries: SiiqQueries) -> HoldsReport:
    """Section 8: every held value and every notice to the operator, at the head."""
    state = queries.reader.latest()
    return HoldsReport(holds=holds(state), notifications=notices(state))


def publish_inputs(
    ledger: Ledger, values: Sequence[PublishedValue], now: datetime
) -> PublishReport:
    """Inputs already checked elsewhere (the demo's synthetic set, which no source serves)
    published as one update's values at `now`, then the publication with section 8's check:
    one day of section 11's archive."""
    published = SiiqQueries(ledger).reader.latest().guards.values
    changed = [v for v in values if published.get(v.key) != v]
    if changed:
        correction = any(v.key in published for v in changed)
        event = ValuesPublished(at=now, values=changed, correction=correction)
        ledger.append(ledger.next_versions([event]))
    return publish_siiq(ledger, now)
