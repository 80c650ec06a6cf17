"""The methodology read model: the domain's state (`domain.state`) folded from the ledger."""

from __future__ import annotations

from domain.state.fold import apply
from domain.state.methodology import Methodology
from ledger.actions import SIGNATURES
from ledger.ledger import RecordedEvent


class MethodologyProjection:
    name = "methodology.v12"
    model_type = Methodology

    def initial(self) -> Methodology:
        return Methodology()

    def apply(self, model: Methodology, recorded: RecordedEvent) -> Methodology:
        return apply(model, recorded.position, recorded.event, recorded.recorded_at, SIGNATURES)
