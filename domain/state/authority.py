"""Who may decide, folded from the ledger (ARCHITECTURE.md, "Authority"): the registered keys,
each key's last sequence, the approvals for the public, and the window of facts the last action
with authority decided.

A decision counts only when its fact is recorded right after a signed action whose authority
holds as of its position (its key registered by a chain of such actions back to the ledger's
first owner, for this ledger, in sequence, in time, by a role allowed to), among the facts that
action recorded, and is one that action decides (`domain.actions.binds`). Every fold that reads a
decision, `ledger verify` and the offline verifier ask the same two questions here: `admit` for
an action, `authorized` for a fact. A fact appended on its own counts nowhere."""

from __future__ import annotations

from datetime import datetime

from domain.actions import AuthorityFact, authority_facts, binds
from domain.errors import Rejected
from domain.events import (
    DomainEvent,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    PublicationApproved,
)
from domain.operators import Signatures, Signed, refusals, signing_key
from domain.state.records import Approval, Authority, OperatorKey, Window


def judge(
    authority: Authority,
    signed: Signed,
    appended_at: datetime,
    signatures: Signatures,
    ledger: str | None,
) -> tuple[bool, str | None]:
    """A signed action against `authority`: whether its signature is a registered key's own at
    that key's next sequence, and why it has no authority (None when it has), for the ledger of
    origin `ledger` (None: the first owner's action names it)."""
    keys, last = authority.operators, authority.sequences.get(signed.key_id, 0)
    public_key = signing_key(signed, keys)
    holds = public_key is not None and signatures.holds(signed, public_key)
    reasons = refusals(
        signed, keys, last, signature_holds=holds, ledger=ledger, appended_at=appended_at
    )
    return holds and signed.sequence == last + 1, next(reasons, None)


def admit(
    authority: Authority,
    position: int,
    acted: OperatorActed,
    appended_at: datetime,
    signatures: Signatures,
) -> str | None:
    """A recorded signed action: why it has no authority, or None when it has (then the facts it
    recorded after itself are its window). A genuine signature by a registered key at its next
    sequence takes that sequence even when the action is refused, so its signer's next action is
    still its next."""
    authority.window = None
    genuine, why = judge(authority, acted, appended_at, signatures, authority.ledger)
    if genuine:
        authority.sequences[acted.key_id] = acted.sequence
    if why is not None:
        return why
    if authority.ledger is None:
        authority.ledger = acted.ledger
    authority.window = Window(acted=acted, position=position, end=position + acted.decides)
    return None


def authorized(authority: Authority, position: int, fact: DomainEvent) -> bool:
    """Whether a decision fact at `position` is one the last action with authority decided:
    among the facts it recorded, and bound to it."""
    window = authority.window
    return (
        window is not None
        and window.position < position <= window.end
        and binds(window.acted.action, window.acted.operator, fact)
    )


def apply_authority(
    authority: Authority, position: int, fact: AuthorityFact, signatures: Signatures
) -> bool:
    """An approval, a registration or a revocation at `position`, applied when it is authorized
    and is what its action decides as of the action's position (the same rule that judged it when
    submitted: the approval above the last, a name's one live key, never the last owner); whether
    it was."""
    window = authority.window
    if window is None or not authorized(authority, position, fact):
        return False
    acted = window.acted
    try:
        decided = authority_facts(
            acted.action, acted.operator, authority, window.position - 1, signatures
        )
    except Rejected:
        return False
    if fact not in decided:
        return False
    match fact:
        case PublicationApproved():
            approval = Approval(position=fact.position, at=position, operator=fact.operator)
            authority.approvals.append(approval)
        case OperatorRegistered():
            authority.operators[fact.key_id] = OperatorKey(
                name=fact.name,
                key_id=fact.key_id,
                public_key=fact.public_key,
                role=fact.role,
                registered_at=position,
            )
        case OperatorRevoked():
            authority.operators[fact.key_id].revoked_at = position
    return True


def fold_authority(
    authority: Authority,
    position: int,
    event: DomainEvent,
    appended_at: datetime,
    signatures: Signatures,
) -> bool:
    """`event` applied to `authority` when it is a signed action or an authority fact (an
    approval, a registration, a revocation); whether it was one."""
    match event:
        case OperatorActed():
            admit(authority, position, event, appended_at, signatures)
        case PublicationApproved() | OperatorRegistered() | OperatorRevoked():
            apply_authority(authority, position, event, signatures)
        case _:
            return False
    return True
