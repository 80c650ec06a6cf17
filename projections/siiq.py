"""SI-IQ folded from the ledger: the latest inputs and the calibration in force (SI-IQ section
3: between calibrations the parameters are frozen; a rejected one leaves the last accepted)."""

from __future__ import annotations

import msgspec

from domain.events import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.siiq import METHOD_VERSION
from domain.siiq.attributions import attributions, sources_of
from domain.siiq.index import IndexDocument, build_index
from domain.siiq.records import CalibrationSummary
from ledger.ledger import RecordedEvent


class Siiq(msgspec.Struct, kw_only=True):
    inputs: SiiqInputsRecorded | None = None
    in_force: CalibrationAccepted | None = None
    last_rejected: CalibrationRejected | None = None
    last_decision: CalibrationAccepted | CalibrationRejected | None = None


class SiiqProjection:
    name = "siiq.v2"
    model_type = Siiq

    def initial(self) -> Siiq:
        return Siiq()

    def apply(self, model: Siiq, recorded: RecordedEvent) -> Siiq:
        match recorded.event:
            case SiiqInputsRecorded() as inputs:
                model.inputs = inputs
            case CalibrationAccepted() as accepted:
                model.in_force = model.last_decision = accepted
            case CalibrationRejected() as rejected:
                model.last_rejected = model.last_decision = rejected
        return model


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
    """/data/index.json: the latest inputs scored with the calibration in force."""
    if state.in_force is None or state.inputs is None:
        return IndexDocument(version=METHOD_VERSION, calibration=NO_CALIBRATION, models=[])
    document = build_index(state.inputs.results, state.in_force.calibration)
    credited = attributions(sources_of(state.inputs.inputs))
    return msgspec.structs.replace(document, attributions=credited)
