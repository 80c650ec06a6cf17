"""`siiq calibrate`: read the normalised inputs, calibrate, record the decision."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from api.services.queries import SiiqQueries
from domain.errors import InvalidInput
from domain.events import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.siiq.data import Observations, read_benchmarks, read_reference, read_results, select
from domain.siiq.index import (
    IndexDocument,
    build_index,
    recompute,
    run_calibration,
)
from domain.siiq.recalibration import recalibration_problem
from domain.siiq.records import CalibrationSummary
from domain.siiq.reference_group import REFERENCE_GROUP, first_reference_problem
from domain.siiq.versions import (
    Conversion,
    Kind,
    calibration_version,
    conversion_table,
    major_too_soon,
    structural_change,
)
from ledger.ledger import Ledger


def calibrate_files(
    ledger: Ledger,
    results: Path,
    benchmarks: Path,
    reference: Path,
    *,
    major: bool = False,
    frozen: Sequence[str] = REFERENCE_GROUP,
    now: datetime | None = None,
) -> CalibrationSummary:
    """Calibrate from the three input files and append the inputs (once) and the outcome:
    `CalibrationAccepted` with every parameter, or `CalibrationRejected` with the reason; the
    first calibration must use the frozen reference group (`frozen`, section 4's list unless
    a synthetic world names its own); a recalibration must also pass section 3's checks
    against the index it would replace and keep the reference group, which only a major
    version (`major`, at most once a year, `now`; with its conversion table, old score ->
    new, and the checks that still apply) changes (section 11)."""
    texts = {
        "results": results.read_bytes(),
        "benchmarks": benchmarks.read_bytes(),
        "reference": reference.read_bytes(),
    }
    inputs = {kind: hashlib.sha256(data).hexdigest() for kind, data in texts.items()}
    all_benchmarks = read_benchmarks(texts["benchmarks"].decode())
    selection = select(read_results(texts["results"].decode()), all_benchmarks)
    group = read_reference(texts["reference"].decode())
    obs = Observations.build(selection.results, selection.benchmarks)
    summary = run_calibration(obs, all_benchmarks, set(selection.invalid_benchmarks), group)
    queries = SiiqQueries(ledger)
    published = queries.index()
    state = queries.reader.latest()
    version = state.version
    first = state.in_force is None
    refused = first_reference_problem(group, frozen) if first else None
    if refused is not None:
        summary = msgspec.structs.replace(summary, accepted=False, reason=refused)
    conversion: list[Conversion] = []
    if summary.accepted and published.calibration.accepted:
        proposed = build_index(selection.results, summary)
        too_soon = major_too_soon(state.major_since, now or datetime.now(UTC))
        problem = (too_soon if major else structural_change(published.calibration, summary)) or (
            recalibration_problem(published, proposed, major)
        )
        if problem is not None:
            summary = msgspec.structs.replace(summary, accepted=False, reason=problem)
        else:
            kind: Kind = "major" if major else "minor"
            number = calibration_version(published.calibration, summary, version, kind)
            summary = msgspec.structs.replace(summary, version=number)
            if major:
                conversion = conversion_table(_scores(published), _scores(proposed))
    recorded = SiiqInputsRecorded(
        inputs=inputs,
        results=selection.results,
        benchmarks=selection.benchmarks,
        reference=group,
        ignored_rows=selection.ignored_rows,
        invalid_benchmarks=selection.invalid_benchmarks,
    )
    outcome: CalibrationAccepted | CalibrationRejected = (
        CalibrationAccepted(inputs=inputs, calibration=summary, conversion=conversion)
        if summary.accepted
        else CalibrationRejected(inputs=inputs, calibration=summary)
    )
    events = [outcome] if ledger.stream(recorded.stream) else [recorded, outcome]
    ledger.append(ledger.next_versions(events))
    return summary


def _scores(document: IndexDocument) -> list[tuple[str, float]]:
    return [(m.slug, m.si_iq_full) for m in document.models]


class RecomputeReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    models: int
    mismatch: str | None


def recompute_document(document: bytes) -> RecomputeReport:
    """SI-IQ section 8's check: every score of an index document recomputed from it alone."""
    try:
        index = msgspec.json.decode(document, type=IndexDocument)
    except msgspec.DecodeError as e:  # ValidationError is a DecodeError
        raise InvalidInput(f"not an SI-IQ index document: {e}") from e
    mismatch = recompute(index)
    return RecomputeReport(ok=mismatch is None, models=len(index.models), mismatch=mismatch)
