"""Approving the ledger for the public in tests, as an operator would: with an owner's key kept
under ARGUSIC_HOME (one made on first use), a signed `approve_publication` of the head."""

from __future__ import annotations

from pathlib import Path

from api.services.operators import ActionDesk
from api.services.reader import ProjectionReader
from domain.events.operators import ApprovePublication
from domain.state.methodology import Methodology
from ledger.ledger import Ledger
from ledger.note import Signer
from ledger.signing_key import load_signer
from projections.methodology import MethodologyProjection

OWNER = "tester"


def action_desk(ledger: Ledger) -> ActionDesk:
    """Where a test's actions arrive, judged as the server judges them."""
    return ActionDesk(ledger, ProjectionReader(ledger, MethodologyProjection()))


def publish(ledger: Ledger, home: Path, desk: ActionDesk | None = None) -> int:
    """Approve everything recorded so far (at `desk`, kept by a caller that publishes again and
    again, its state folded on in memory); the position approved."""
    desk = desk or action_desk(ledger)
    if not desk.reader.latest().authority.operators:
        desk.init_owner(home, OWNER)
    position = ledger.size()
    desk.act(owner(ledger, home, desk.reader), ApprovePublication(position=position))
    return position


def owner(
    ledger: Ledger, home: Path, reader: ProjectionReader[Methodology] | None = None
) -> Signer:
    """A live owner's key among those kept under `home`."""
    reader = reader or ProjectionReader(ledger, MethodologyProjection())
    keys = reader.latest().authority.operators
    for path in sorted((home / "operators").glob("*.key")):
        signer = load_signer(path)
        key = signer and keys.get(signer.verifier.key_id.hex())
        if signer and key and key.role == "owner" and key.revoked_at is None:
            return signer
    raise LookupError(f"no live owner's key under {home / 'operators'}")
