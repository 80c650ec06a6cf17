"""Sections 3, 8 and 11 in an update: a revised benchmark moving in one step with a
recalibration, the first calibration and the monthly one."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import msgspec

from api.services.siiq_run import Run
from domain.events import (
    BenchmarkUnfrozen,
    CalibrationAccepted,
    CalibrationRejected,
    DomainEvent,
    PublishedValue,
    RevisionAttempted,
    RevisionObserved,
    SiiqInputsRecorded,
)
from domain.siiq import guards as rules
from domain.siiq.benchmark_sources import INDEX_SOURCES
from domain.siiq.data import Observations, select
from domain.siiq.guards import Seen
from domain.siiq.index import build_index, run_calibration
from domain.siiq.intake import Intake
from domain.siiq.recalibration import recalibration_problem
from domain.siiq.records import CalibrationSummary, Result
from domain.siiq.reference_group import REFERENCE_GROUP
from domain.siiq.versions import calibration_version, structural_change
from projections.siiq import published_results
from projections.siiq_sources import Sources, good_snapshots


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


def revisions(run: Run) -> None:
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
            run.notify(
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
        run.publish_value(value)
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


def calibrations(run: Run) -> None:
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
