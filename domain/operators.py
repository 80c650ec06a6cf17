"""Operators and their signed actions (ARCHITECTURE.md, "Operators"): a person acts on the
ledger only through an action signed with a key registered in the ledger itself. Methodology
section 1: "una persona da su aprobación antes de que se publique nada".

The signature is checked by the caller (it needs the key's bytes); the rules here decide
whether a checked action may be recorded."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Annotated, Literal

import msgspec

from domain.errors import Rejected
from domain.events.base import Text
from domain.events.operators import (
    Action,
    AddOperator,
    OperatorAction,
    RevokeOperator,
    action_name,
)
from domain.state.records import OperatorKey

Role = Literal["owner", "operator"]
KeyId = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{8}$")]
Signature = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9+/]{86}==$")]
RULE = "operators"


class UnsignedAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What an operator's signature covers, made canonical by the one codec."""

    action: OperatorAction
    operator: Text
    key_id: KeyId
    sequence: Annotated[int, msgspec.Meta(ge=1)]
    signed_at: Annotated[datetime, msgspec.Meta(tz=True)]


class SignedAction(UnsignedAction, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An action as its operator signed it (`operator sign` prints it, `submit` takes it)."""

    signature: Signature

    def unsigned(self) -> UnsignedAction:
        return UnsignedAction(
            action=self.action,
            operator=self.operator,
            key_id=self.key_id,
            sequence=self.sequence,
            signed_at=self.signed_at,
        )


def may_act(role: Role, action: Action) -> bool:
    """Owners may do everything; an operator may do everything but add or revoke keys."""
    return role == "owner" or not isinstance(action, AddOperator | RevokeOperator)


def first_owner(signed: SignedAction, keys: Mapping[str, OperatorKey]) -> bool:
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


def admit_action(
    signed: SignedAction,
    keys: Mapping[str, OperatorKey],
    last_sequence: int,
    signature_ok: bool,
) -> None:
    """An action is recorded only when its key is known and not revoked, its signature holds,
    its sequence is the key's next (a replayed or reordered action is refused), and its signer's
    role allows it; each refusal names what failed."""
    if signed.signed_at.utcoffset() != timedelta(0):
        raise Rejected(RULE, "signed_at must be a UTC timestamp, written with Z")
    key = keys.get(signed.key_id)
    if not first_owner(signed, keys):
        if key is None or key.name != signed.operator:
            raise Rejected(RULE, f"key {signed.key_id} of {signed.operator!r} is not registered")
        if key.revoked_at is not None:
            raise Rejected(RULE, f"key {signed.key_id} of {signed.operator!r} was revoked")
    if not signature_ok:
        raise Rejected(RULE, f"the signature of {signed.operator}'s action does not verify")
    if signed.sequence != last_sequence + 1:
        raise Rejected(
            RULE,
            f"sequence {signed.sequence} of key {signed.key_id} is not its next "
            f"({last_sequence + 1}): a replayed or reordered action",
        )
    if key is not None and not may_act(key.role, signed.action):
        raise Rejected(RULE, f"{signed.operator} ({key.role}) may not {action_name(signed.action)}")
