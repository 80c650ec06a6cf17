"""Signed actions for tests of the pure folds: an owner that registers itself and signs actions
for one ledger at one moment, as `operator init` and `operator act` would."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent, OperatorRegistered
from domain.events.operators import AddOperator, OperatorAction
from ledger.actions import acted, sign
from ledger.note import Signer

ORIGIN = "argusic.local/ledger/0123456789abcdef"
AT = datetime(2026, 12, 1, tzinfo=UTC)


class Operator:
    """A key that signs its actions in sequence, the first its own registration as owner."""

    def __init__(self, name: str = "olga", origin: str = ORIGIN, at: datetime = AT) -> None:
        self.signer, self.origin, self.at = Signer.generate(name), origin, at
        self.sequence = 0

    @property
    def name(self) -> str:
        return self.signer.name

    def registers(self) -> list[DomainEvent]:
        """The first owner's registration, with the fact it decides."""
        verifier = self.signer.verifier
        name, public_key = self.signer.name, str(verifier)
        registered = OperatorRegistered(
            name=name, key_id=verifier.key_id.hex(), public_key=public_key, role="owner"
        )
        return self.signs(AddOperator(name=name, public_key=public_key, role="owner"), registered)

    def signs(self, action: OperatorAction, *facts: DomainEvent) -> list[DomainEvent]:
        """The action signed as this key's next, followed by the facts it decides."""
        self.sequence += 1
        signed = sign(self.signer, action, self.sequence, self.at, self.origin)
        return [acted(signed, len(facts)), *facts]
