"""Operators and their signed actions (ARCHITECTURE.md, "Operators" and "Authority"): a person
acts on the ledger only through an action signed with a key registered in the ledger itself,
for this ledger. Methodology section 1: "una persona da su aprobación antes de que se publique
nada".

The rules here judge one signed action; whether its signature verifies is asked of a
`Signatures` port (Ed25519 needs a library the domain does not import)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Annotated, Literal, Protocol

import msgspec

from domain.events.base import Text
from domain.events.operators import (
    Action,
    AddOperator,
    OperatorActed,
    OperatorAction,
    RevokeOperator,
    action_name,
)
from domain.state.records import OperatorKey

Role = Literal["owner", "operator"]
KeyId = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{8}$")]
Signature = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9+/]{86}==$")]
RULE = "operators"

SIGNED_BEFORE = timedelta(hours=24)
"""How long before it is appended an action may have been signed (offline signing, then a
submission elsewhere): older signed actions are refused, so one cannot be kept and played later."""
SIGNED_AFTER = timedelta(minutes=5)
"""How far after its append an action may say it was signed: the signer's clock running ahead."""


class UnsignedAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What an operator's signature covers, made canonical by the one codec."""

    action: OperatorAction
    ledger: Text
    """The checkpoint origin of the ledger the action is for: it counts on no other."""
    operator: Text
    key_id: KeyId
    sequence: Annotated[int, msgspec.Meta(ge=1)]
    signed_at: Annotated[datetime, msgspec.Meta(tz=True)]


class SignedAction(UnsignedAction, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An action as its operator signed it (`operator sign` prints it, `submit` takes it)."""

    signature: Signature


Signed = SignedAction | OperatorActed
"""A signed action, submitted or as the ledger recorded it."""


class Signatures(Protocol):
    """How an operator's signature is checked: by the ledger's code, or by an auditor's own."""

    def holds(self, signed: Signed, public_key: str) -> bool:
        """Whether the signature verifies with the verifier key `public_key` (its name and key
        id those of the signer)."""
        ...

    def key_id(self, public_key: str, name: str) -> str | None:
        """The key id of a well-formed verifier key carrying `name`, else None."""
        ...


def may_act(role: Role, action: Action) -> bool:
    """Owners may do everything; an operator may do everything but add or revoke keys."""
    return role == "owner" or not isinstance(action, AddOperator | RevokeOperator)


def first_owner(signed: Signed, keys: Mapping[str, OperatorKey]) -> bool:
    """`operator init`: on a ledger with no operator, the first key registers itself as the
    owner, with an action it signs itself (its sequence 1)."""
    action = signed.action
    return (
        not keys
        and isinstance(action, AddOperator)
        and action.role == "owner"
        and action.name == signed.operator
        and signed.sequence == 1
    )


def signed_in_time(signed_at: datetime, appended_at: datetime) -> bool:
    """An action counts only when appended soon after it was signed: an action signed long ago
    (or in the future) cannot be held back and played later."""
    return appended_at - SIGNED_BEFORE <= signed_at <= appended_at + SIGNED_AFTER


def signing_key(signed: Signed, keys: Mapping[str, OperatorKey]) -> str | None:
    """The verifier key the signature must verify with: the registered one, or for the first
    owner its own, which the action carries."""
    key, action = keys.get(signed.key_id), signed.action
    if key is not None:
        return key.public_key
    if first_owner(signed, keys) and isinstance(action, AddOperator):
        return action.public_key
    return None


def refusals(
    signed: Signed,
    keys: Mapping[str, OperatorKey],
    last_sequence: int,
    *,
    signature_holds: bool,
    ledger: str | None,
    appended_at: datetime,
) -> Iterator[str]:
    """Why a signed action has no authority, in this order, lazily (the first is the one named;
    none when it has authority): its key is registered and not revoked (or it is the first owner
    registering itself), its signature holds, its sequence is the key's next (a replayed or
    reordered action is refused), it is for this ledger (`ledger`; None: the first owner's action
    names it), it was signed in time, and its signer's role allows it."""
    if signed.signed_at.utcoffset() != timedelta(0):
        yield "signed_at must be a UTC timestamp, written with Z"
    key = keys.get(signed.key_id)
    if not first_owner(signed, keys):
        if key is None or key.name != signed.operator:
            yield f"key {signed.key_id} of {signed.operator!r} is not registered"
        elif key.revoked_at is not None:
            yield f"key {signed.key_id} of {signed.operator!r} was revoked at {key.revoked_at}"
    if not signature_holds:
        yield f"the signature of {signed.operator}'s action does not verify"
    if signed.sequence != last_sequence + 1:
        yield (
            f"sequence {signed.sequence} of key {signed.key_id} is not its next "
            f"({last_sequence + 1}): a replayed or reordered action"
        )
    if ledger is not None and signed.ledger != ledger:
        yield f"the action was signed for ledger {signed.ledger!r}, not for this one ({ledger})"
    if not signed_in_time(signed.signed_at, appended_at):
        yield (
            f"signed at {signed.signed_at.isoformat()}, appended at {appended_at.isoformat()}: "
            f"an action counts from {SIGNED_AFTER} before to {SIGNED_BEFORE} after its signing"
        )
    if key is not None and not may_act(key.role, signed.action):
        yield f"{signed.operator} ({key.role}) may not {action_name(signed.action)}"
