"""Operators' signed actions (ARCHITECTURE.md, "Operators" and "Authority"): keys kept as files
under `ARGUSIC_HOME/operators/`, registered in the ledger itself; every action signed for one
ledger, verified and judged against the ledger's state at its head, then appended with the facts
it decides, all at once, right after that head or not at all. An approval also commits to every
stream's head as of that head (`ledger.heads_map`)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import msgspec
from eventsourcing.persistence import OperationalError

from api.services.json_input import decoded
from api.services.pool import last_records
from api.services.reader import ProjectionReader
from domain.actions import Context, PoolDraw, decide
from domain.errors import InvalidInput, Rejected, SetupError
from domain.events import DomainEvent, StreamHeadsCommitted
from domain.events.operators import (
    AddOperator,
    ApprovePublication,
    ApproveRevision,
    OperatorAction,
    ReleaseHold,
    SelectPool,
    action_name,
)
from domain.operators import SignedAction, first_owner
from domain.state.authority import judge
from domain.state.methodology import Methodology
from ledger.actions import SIGNATURES, acted, sign
from ledger.heads_map import map_root
from ledger.ledger import Ledger
from ledger.note import NoteError, Signer
from ledger.signing_key import create_signer, load_signer
from ledger.store import HeadMoved
from projections.runner import ReadModel
from projections.siiq import SiiqProjection, open_holds

Clock = Callable[[], datetime]
ATTEMPTS = 50
"""How often an action is judged again when the ledger grew while it was judged."""
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
    return state.authority.next_sequence(key_id)


def sign_action(
    signer: Signer, action: OperatorAction, clock: Clock, sequence: int, ledger: str
) -> SignedAction:
    """`action` signed by `signer` now, as its `sequence`th, for the ledger of origin `ledger`."""
    return sign(signer, action, sequence, clock(), ledger)


def _siiq_guards(action: OperatorAction, ledger: Ledger, head: int) -> tuple[set[str], set[str]]:
    """SI-IQ's open holds and frozen benchmarks at `head`, read only for the actions that act
    on them."""
    if not isinstance(action, ReleaseHold | ApproveRevision):
        return set(), set()
    guards = ReadModel(ledger, SiiqProjection()).as_of(head).guards
    return open_holds(guards), set(guards.frozen)


def pool_draw(
    action: OperatorAction, ledger: Ledger, state: Methodology, head: int
) -> PoolDraw | None:
    """What a `select_pool` draws from at `head` (read only for it): each candidate's last record,
    the seed (SHA-256 of the ledger's root there and the cycle: the same position draws the same
    pools, and nobody chooses it) and a fresh random salt for the secret list's commitment."""
    if not isinstance(action, SelectPool):
        return None
    seed = hashlib.sha256(f"{ledger.root(head).hex()}\n{action.cycle}".encode()).hexdigest()
    last = last_records(ledger, state.candidates)
    return PoolDraw(candidates=list(last.values()), seed=seed, salt=secrets.token_hex(16))


def judged(
    signed: SignedAction, ledger: Ledger, state: Methodology, head: int, now: datetime
) -> list[DomainEvent]:
    """The events a signed action appends right after `head`, judged against `state` (the
    ledger up to it) as every fold will judge it where it is read; a refusal names what
    failed."""
    _, why = judge(state.authority, signed, now, SIGNATURES, ledger.origin)
    if why:
        raise Rejected("operators", why)
    action = signed.action
    context = Context(
        head,
        SIGNATURES,
        *_siiq_guards(action, ledger, head),
        pool_draw(action, ledger, state, head),
    )
    facts = decide(action, signed.operator, state, context)
    if isinstance(action, ApprovePublication):
        if not ledger.recorder.checkpoint(action.position):
            raise Rejected(
                "section 1", f"position {action.position} is no signed checkpoint's size"
            )
        facts.append(committed_heads(ledger, action.position, head))
    return [acted(signed, len(facts)), *facts]


def committed_heads(ledger: Ledger, position: int, size: int) -> StreamHeadsCommitted:
    """An approval's commitment to every stream's head as of `size`, the ledger it judged: what
    an audit bundle of the approved figures proves it left nothing out against."""
    heads = ledger.stream_heads(size)
    return StreamHeadsCommitted(
        position=position, size=size, streams=len(heads), root=map_root(heads).hex()
    )


@dataclass(frozen=True)
class ActionDesk:
    """Where signed actions arrive: each judged against the state at the ledger's head (which
    the server's readers cannot fold on while it is judged) and appended right after that head,
    or judged again when the ledger grew meanwhile. So actions are ordered by the ledger, each
    judged against every one before it: two approvals at once never go back, and nothing a key
    signs after its revocation is recorded. Actions signed here are signed by the ledger's
    clock."""

    ledger: Ledger
    reader: ProjectionReader[Methodology]

    @property
    def clock(self) -> Clock:
        """The ledger's clock: what an action is signed at here is what its append will say."""
        return self.ledger.clock

    def submit(self, signed: SignedAction) -> ActionReport:
        """A signed action made elsewhere (`operator submit`, `POST /operator/actions`): never
        the first owner's, which only `operator init` on the ledger's machine registers."""
        return self._append(lambda _: signed, first=False)

    def act(self, signer: Signer, action: OperatorAction) -> ActionReport:
        """`action` signed with the key's next sequence, for this ledger, and submitted."""

        def signed(state: Methodology) -> SignedAction:
            sequence = next_sequence(state, signer.verifier.key_id.hex())
            return sign_action(signer, action, self.clock, sequence, self.ledger.origin)

        return self._append(signed, first=False)

    def sign(self, signer: Signer, action: OperatorAction, sequence: int | None) -> SignedAction:
        """`operator sign`: the action signed for this ledger, with the key's next sequence by
        default."""
        if sequence is None:
            sequence = next_sequence(self.reader.latest(), signer.verifier.key_id.hex())
        return sign_action(signer, action, self.clock, sequence, self.ledger.origin)

    def init_owner(self, home: Path, name: str) -> InitReport:
        """`operator init NAME`: the first owner of a ledger with no operator; its key is written
        readable by its owner only and registers itself with an action it signs."""
        if self.reader.latest().authority.operators:
            raise Rejected("operators", "this ledger has operators already: an owner adds the next")
        try:
            signer = create_signer(key_path(home, name), name)
        except FileExistsError as e:
            raise Rejected("operators", f"a key for {name} exists at {key_path(home, name)}") from e
        except NoteError as e:
            raise Rejected("operators", str(e)) from e
        return self.register_first_owner(signer)

    def register_first_owner(self, signer: Signer) -> InitReport:
        """The key registers itself as the ledger's first owner, with an action it signs."""
        public_key = str(signer.verifier)
        action = AddOperator(name=signer.name, public_key=public_key, role="owner")
        signed = sign_action(signer, action, self.clock, 1, self.ledger.origin)
        self._append(lambda _: signed, first=True)
        return InitReport(name=signer.name, public_key=public_key)

    def _append(
        self, signed_for: Callable[[Methodology], SignedAction], first: bool
    ) -> ActionReport:
        for _ in range(ATTEMPTS):
            try:
                return self.reader.look(
                    lambda state, head: self._append_at(signed_for(state), state, head, first)
                )
            except HeadMoved:
                continue
        raise OperationalError(f"the ledger kept growing during {ATTEMPTS} attempts to act")

    def _append_at(
        self, signed: SignedAction, state: Methodology, head: int, first: bool
    ) -> ActionReport:
        operators = state.authority.operators
        if first and operators:
            raise Rejected("operators", "this ledger has operators already: an owner adds the next")
        if not first and first_owner(signed, operators):
            raise Rejected(
                "operators",
                "the first owner is registered only by `argusic operator init` on the ledger's "
                "machine",
            )
        events = judged(signed, self.ledger, state, head, self.clock())
        self.ledger.append(self.ledger.next_versions(events), after=head)
        return ActionReport(
            position=head + 1,
            action=action_name(signed.action),
            operator=signed.operator,
            sequence=signed.sequence,
        )
