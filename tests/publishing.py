"""Approving the ledger for the public in tests, as an operator would: an owner made on first
use, then a signed `approve_publication` of the head."""

from __future__ import annotations

from pathlib import Path

from adapters.clock import utc_now
from api.services.operators import act, init_operator, operator_signer
from api.services.reader import ProjectionReader
from domain.events.operators import ApprovePublication
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection

OWNER = "tester"


def publish(ledger: Ledger, home: Path) -> int:
    """Approve everything recorded so far; the position approved."""
    reader = ProjectionReader(ledger, MethodologyProjection())
    if not reader.latest().operators:
        init_operator(home, OWNER, ledger, reader.latest(), utc_now)
    position = ledger.size()
    owner = operator_signer(home, OWNER)
    act(owner, ApprovePublication(position=position), ledger, reader.latest(), utc_now)
    return position
