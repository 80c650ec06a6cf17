"""`siiq update`: the first calibration from the latest snapshots (SI-IQ section 3)."""

from __future__ import annotations

import hashlib

import msgspec

from api.services.queries import SiiqQueries
from api.services.sources import SourcesQueries
from domain.events import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.siiq.data import Observations, select
from domain.siiq.index import run_calibration
from domain.siiq.intake import Intake
from domain.siiq.matching import EPOCH
from domain.siiq.records import CalibrationSummary
from domain.siiq.reference_group import REFERENCE_GROUP
from ledger.ledger import Ledger
from projections.siiq_sources import Sources, good_snapshots

NO_DATA = "no good Epoch AI snapshot yet: run `argusic sources fetch` first"
IN_FORCE = (
    "a calibration is in force: parameters stay frozen until the monthly recalibration (section 3)"
)


class UpdateReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq update --json`: whether a calibration was run and recorded, and why not."""

    calibrated: bool
    reason: str | None
    inputs: dict[str, str]
    calibration: CalibrationSummary | None


def snapshot_inputs(state: Sources) -> dict[str, str]:
    """What a calibration from the snapshots was computed from, by SHA-256: each Epoch file
    in use, the reference group and the approved aliases (SiiqInputsRecorded.inputs)."""
    found = {f"{EPOCH} {s.address}": s.sha256 for s in good_snapshots(state, EPOCH)}
    found["reference"] = hashlib.sha256("\n".join(REFERENCE_GROUP).encode()).hexdigest()
    found["aliases"] = hashlib.sha256(msgspec.json.encode(state.aliases)).hexdigest()
    return found


def update_siiq(ledger: Ledger) -> UpdateReport:
    """Section 3: the first calibration runs from the latest snapshots when none is in force,
    through the same engine as `siiq calibrate`; accepted or rejected, it is recorded with its
    inputs. With one in force nothing is recalibrated here (the monthly recalibration and the
    guards of section 8 come later)."""
    sources = SourcesQueries(ledger)
    state = sources.latest()
    intake = sources.intake()
    if intake is None:
        return UpdateReport(calibrated=False, reason=NO_DATA, inputs={}, calibration=None)
    inputs = snapshot_inputs(state)
    if SiiqQueries(ledger).index().calibration.accepted:
        return UpdateReport(calibrated=False, reason=IN_FORCE, inputs=inputs, calibration=None)
    summary, recorded = calibration_of(intake, inputs)
    outcome = (CalibrationAccepted if summary.accepted else CalibrationRejected)(
        inputs=inputs, calibration=summary
    )
    events = [outcome] if ledger.stream(recorded.stream) else [recorded, outcome]
    ledger.append(ledger.next_versions(events))
    return UpdateReport(calibrated=True, reason=None, inputs=inputs, calibration=summary)


def calibration_of(
    intake: Intake, inputs: dict[str, str]
) -> tuple[CalibrationSummary, SiiqInputsRecorded]:
    """Section 3 on the intake's results with the frozen reference group of section 4."""
    selection = select(intake.results, intake.benchmarks)
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
