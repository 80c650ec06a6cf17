"""Operators' signed actions (ARCHITECTURE.md, "Operators"): keys kept as files under
`ARGUSIC_HOME/operators/`, registered in the ledger itself; every action signed, verified and
admitted against the ledger's state, then appended with the facts it decides, all at once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import msgspec
from eventsourcing.persistence import IntegrityError

from api.services.json_input import decoded
from api.services.reader import ProjectionReader
from domain.actions import Context, decide
from domain.errors import InvalidInput, Rejected, SetupError
from domain.events import DomainEvent
from domain.events.operators import (
    AddOperator,
    ApprovePublication,
    ApproveRevision,
    OperatorAction,
    ReleaseHold,
    action_name,
)
from domain.operators import SignedAction, admit_action
from domain.state.methodology import Methodology
from ledger.actions import acted, sign, signature_holds
from ledger.ledger import Ledger
from ledger.note import NoteError, Signer, Verifier
from ledger.signing_key import create_signer, load_signer
from projections.runner import ReadModel
from projections.siiq import PUBLICATION_HOLD, SiiqProjection

Clock = Callable[[], datetime]
_signed = msgspec.json.Decoder(SignedAction)
_action: msgspec.json.Decoder[OperatorAction] = msgspec.json.Decoder(OperatorAction)


class ActionReport(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    action: str
    operator: str
    sequence: int


class InitReport(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    public_key: str


def key_path(home: Path, name: str) -> Path:
    return home / "operators" / f"{name}.key"


def operator_signer(home: Path, name: str) -> Signer:
    """The key of operator `name` kept on this machine."""
    signer = load_signer(key_path(home, name))
    if signer is None:
        raise SetupError(f"no key for operator {name} at {key_path(home, name)}")
    return signer


def read_action(data: bytes) -> OperatorAction:
    try:
        return decoded(_action, data)
    except (msgspec.DecodeError, InvalidInput) as e:
        raise Rejected("operators", f"not an action file: {e}") from e


def read_signed(data: bytes) -> SignedAction:
    try:
        return decoded(_signed, data)
    except (msgspec.DecodeError, InvalidInput) as e:
        raise Rejected("operators", f"not a signed action: {e}") from e


def next_sequence(state: Methodology, key_id: str) -> int:
    return state.sequences.get(key_id, 0) + 1


def sign_action(
    signer: Signer, action: OperatorAction, clock: Clock, sequence: int
) -> SignedAction:
    return sign(signer, action, sequence, clock())


def _public_key(signed: SignedAction, state: Methodology) -> str | None:
    """The verifier key the signature must verify with: the registered one, or for the first
    owner its own key, which the action carries."""
    key = state.operators.get(signed.key_id)
    if key is not None:
        return key.public_key
    return signed.action.public_key if isinstance(signed.action, AddOperator) else None


def _new_key_id(action: OperatorAction) -> str | None:
    if not isinstance(action, AddOperator):
        return None
    try:
        verifier = Verifier.parse(action.public_key)
    except NoteError:
        return None
    return verifier.key_id.hex() if verifier.name == action.name else None


def _siiq_guards(action: OperatorAction, ledger: Ledger) -> tuple[frozenset[str], frozenset[str]]:
    """SI-IQ's open holds (a halted publication's among them, until released) and frozen
    benchmarks, read only for the actions that act on them."""
    if not isinstance(action, ReleaseHold | ApproveRevision):
        return frozenset(), frozenset()
    guards = ReadModel(ledger, SiiqProjection()).as_of().guards
    publication = guards.publication_halt is not None and not guards.publication_released
    holds = {*guards.holds, *[PUBLICATION_HOLD] * publication}
    return frozenset(holds), frozenset(guards.frozen)


def submit(signed: SignedAction, ledger: Ledger, state: Methodology) -> ActionReport:
    """Verify and admit a signed action against the state at the head, then append it with
    what it decides; nothing is appended when anything fails."""
    public_key = _public_key(signed, state)
    holds = public_key is not None and signature_holds(signed, public_key)
    admit_action(signed, state.operators, state.sequences.get(signed.key_id, 0), holds)
    head = ledger.size()
    action = signed.action
    sealed = isinstance(action, ApprovePublication) and (
        ledger.recorder.checkpoint(action.position) is not None
    )
    context = Context(head, sealed, _new_key_id(action), *_siiq_guards(action, ledger))
    facts = decide(action, signed.operator, state, context)
    events: list[DomainEvent] = [acted(signed), *facts]
    placed = ledger.next_versions(events)
    if placed[0].version != signed.sequence:
        raise Rejected("operators", f"sequence {signed.sequence} is not the key's next")
    try:
        checkpoint = ledger.append(placed)
    except IntegrityError as e:
        raise Rejected("operators", "another action took this key's sequence first") from e
    return ActionReport(
        position=checkpoint.size - len(events) + 1,
        action=action_name(signed.action),
        operator=signed.operator,
        sequence=signed.sequence,
    )


def init_operator(
    home: Path, name: str, ledger: Ledger, state: Methodology, clock: Clock
) -> InitReport:
    """`operator init NAME`: the first owner of a ledger with no operator; its key is written
    readable by its owner only and registers itself with an action it signs."""
    if state.operators:
        raise Rejected("operators", "this ledger has operators already: an owner adds the next")
    try:
        signer = create_signer(key_path(home, name), name)
    except FileExistsError as e:
        raise Rejected("operators", f"a key for {name} exists at {key_path(home, name)}") from e
    except NoteError as e:
        raise Rejected("operators", str(e)) from e
    return register_first_owner(signer, ledger, state, clock)


def register_first_owner(
    signer: Signer, ledger: Ledger, state: Methodology, clock: Clock
) -> InitReport:
    """The key registers itself as the ledger's first owner, with an action it signs."""
    public_key = str(signer.verifier)
    action = AddOperator(name=signer.name, public_key=public_key, role="owner")
    submit(sign_action(signer, action, clock, 1), ledger, state)
    return InitReport(name=signer.name, public_key=public_key)


def act(
    signer: Signer, action: OperatorAction, ledger: Ledger, state: Methodology, clock: Clock
) -> ActionReport:
    """Sign `action` with the key's next sequence and submit it."""
    sequence = next_sequence(state, signer.verifier.key_id.hex())
    return submit(sign_action(signer, action, clock, sequence), ledger, state)


class ActionDesk:
    """Where signed actions arrive: each judged against the state at the ledger's head, which
    the server's readers cannot fold on while it is judged."""

    def __init__(self, ledger: Ledger, reader: ProjectionReader[Methodology]) -> None:
        self.ledger, self.reader = ledger, reader

    def submit(self, signed: SignedAction) -> ActionReport:
        return self.reader.look(lambda state, _: submit(signed, self.ledger, state))
