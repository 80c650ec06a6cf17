"""What each operator action decides, given the state it was signed against (ARCHITECTURE.md,
"Operators"): the facts appended after the signed action itself, or a refusal naming the rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from domain.environment_qa import review_project
from domain.errors import Rejected
from domain.events import (
    AliasApproved,
    CycleClosed,
    DisputeOpened,
    DisputeResolved,
    DomainEvent,
    HoldReleased,
    OperatorRegistered,
    OperatorRevoked,
    PublicationApproved,
    RerunRequested,
    RevisionApproved,
    RunVoided,
)
from domain.events.operators import (
    Action,
    AddOperator,
    ApproveAlias,
    ApprovePublication,
    ApproveRevision,
    CloseCycle,
    DisputeOpen,
    DisputeResolve,
    OperatorAction,
    ReleaseHold,
    Review,
    RevokeOperator,
)
from domain.state.methodology import Methodology


class Context(NamedTuple):
    """What an action is judged against besides the state: the head it was submitted at,
    whether its position (an approval's) is a signed checkpoint's size, the key id of the
    public key it registers (an `add_operator`'s, when it parses), and SI-IQ's open holds and
    frozen benchmarks (read for the actions that release or approve them)."""

    head: int
    sealed: bool
    new_key_id: str | None
    open_holds: frozenset[str] = frozenset()
    frozen: frozenset[str] = frozenset()


def approve_publication(
    action: ApprovePublication, operator: str, state: Methodology, context: Context
) -> list[DomainEvent]:
    """Methodology section 1: a person approves what the public sees, as of a position the
    ledger has signed (a checkpoint's size), never past the head, never back before the last
    approval."""
    if action.position > context.head:
        raise Rejected("section 1", f"position {action.position} is past the head ({context.head})")
    if not context.sealed:
        raise Rejected("section 1", f"position {action.position} is no signed checkpoint's size")
    last = state.published()
    if last is not None and action.position < last.position:
        raise Rejected(
            "section 1", f"position {action.position} is before the last approval ({last.position})"
        )
    return [PublicationApproved(position=action.position, operator=operator)]


def close_cycle(
    action: CloseCycle, operator: str, state: Methodology, _: Context
) -> list[DomainEvent]:
    """Methodology section 6: a cycle with a record ends once; its secret pool is published
    with the next approval."""
    if action.cycle not in state.cycles:
        raise Rejected("section 6", f"cycle {action.cycle} has no record")
    if action.cycle in state.closed:
        raise Rejected("section 6", f"cycle {action.cycle} is already closed")
    return [CycleClosed(cycle=action.cycle, operator=operator)]


def dispute_id(run_id: str, state: Methodology) -> str:
    """A dispute is named after its run and how many that run had before it."""
    return f"{run_id}.{len(state.run_disputes(run_id)) + 1}"


def open_dispute(
    action: DisputeOpen, operator: str, state: Methodology, _: Context
) -> list[DomainEvent]:
    """Methodology section 19: a maintainer or a lab disputes a recorded run's result."""
    if action.run_id not in state.runs:
        raise Rejected("section 19", f"run {action.run_id} is not recorded")
    return [
        DisputeOpened(
            dispute=dispute_id(action.run_id, state),
            run_id=action.run_id,
            claimant=action.claimant,
            claim=action.claim,
            operator=operator,
        )
    ]


def resolve_dispute(
    action: DisputeResolve, operator: str, state: Methodology, _: Context
) -> list[DomainEvent]:
    """Methodology section 19: "lo volvemos a ejecutar y corregimos el registro con una nota"
    (the run is voided with the note and run again; its evidence is never edited), or "la
    evidencia respalda el resultado original" (the note says what the recording shows)."""
    dispute = state.disputes.get(action.dispute)
    if dispute is None:
        raise Rejected("section 19", f"dispute {action.dispute} was never opened")
    if dispute.outcome is not None:
        raise Rejected("section 19", f"dispute {action.dispute} is already resolved")
    events: list[DomainEvent] = [
        DisputeResolved(
            dispute=dispute.id,
            run_id=dispute.run_id,
            outcome=action.outcome,
            note=action.note,
            operator=operator,
        )
    ]
    if action.outcome == "rerun":
        reason = f"corrected after dispute {dispute.id}: {action.note}"
        events += [
            RunVoided(run_id=dispute.run_id, reason=reason),
            RerunRequested(run_id=dispute.run_id, reason=reason),
        ]
    return events


def review(action: Review, operator: str, state: Methodology, _: Context) -> list[DomainEvent]:
    """Methodology section 15, as a person's signed finding."""
    under_review = action.project in state.under_review(action.cycle)
    failed = state.failed_runs(action.cycle, action.project)
    return list(review_project(action, operator, under_review, failed))


def add_operator(
    action: AddOperator, _: str, state: Methodology, context: Context
) -> list[DomainEvent]:
    """A name is one key at a time: a name whose key is not revoked is not registered again;
    the public key must parse and carry the operator's name."""
    if context.new_key_id is None:
        raise Rejected("operators", f"the public key of {action.name} is not {action.name}'s")
    for key in state.operators.values():
        if key.name == action.name and key.revoked_at is None:
            raise Rejected("operators", f"operator {action.name} already has key {key.key_id}")
    return [
        OperatorRegistered(
            name=action.name,
            key_id=context.new_key_id,
            public_key=action.public_key,
            role=action.role,
        )
    ]


def revoke_operator(
    action: RevokeOperator, _: str, state: Methodology, __: Context
) -> list[DomainEvent]:
    """A revoked key signs nothing more; the last owner's key is never revoked."""
    live = [k for k in state.operators.values() if k.revoked_at is None]
    key = next((k for k in live if k.name == action.name), None)
    if key is None:
        raise Rejected("operators", f"operator {action.name} has no key to revoke")
    if key.role == "owner" and sum(k.role == "owner" for k in live) == 1:
        raise Rejected("operators", f"{action.name} holds the last owner's key")
    return [OperatorRevoked(name=key.name, key_id=key.key_id)]


def release_hold(
    action: ReleaseHold, operator: str, _: Methodology, context: Context
) -> list[DomainEvent]:
    """SI-IQ section 8: a held value (or a halted publication) released by a person, with the
    reason; a hold that is not open has nothing to release."""
    if action.hold not in context.open_holds:
        raise Rejected("SI-IQ section 8", f"hold {action.hold} is not open: nothing to release")
    return [HoldReleased(hold=action.hold, note=action.note, operator=operator)]


def approve_revision(
    action: ApproveRevision, operator: str, _: Methodology, context: Context
) -> list[DomainEvent]:
    """SI-IQ section 8: a frozen benchmark's revision approved by a person."""
    if action.benchmark not in context.frozen:
        raise Rejected(
            "SI-IQ section 8", f"benchmark {action.benchmark} is not frozen: no revision to approve"
        )
    return [
        RevisionApproved(benchmark=action.benchmark, snapshot=action.snapshot, operator=operator)
    ]


def approve_alias(action: ApproveAlias, operator: str, *_: object) -> list[DomainEvent]:
    """SI-IQ section 1: a source's name confirmed or corrected as a model group."""
    return [
        AliasApproved(
            source=action.source,
            name=action.name,
            group=action.group,
            justification=action.justification,
            operator=operator,
        )
    ]


Decision = Callable[[Any, str, Methodology, Context], list[DomainEvent]]
DECISIONS: dict[type[Action], Decision] = {
    ApprovePublication: approve_publication,
    Review: review,
    CloseCycle: close_cycle,
    DisputeOpen: open_dispute,
    DisputeResolve: resolve_dispute,
    ReleaseHold: release_hold,
    ApproveRevision: approve_revision,
    ApproveAlias: approve_alias,
    AddOperator: add_operator,
    RevokeOperator: revoke_operator,
}


def decide(
    action: OperatorAction, operator: str, state: Methodology, context: Context
) -> list[DomainEvent]:
    """The facts an admitted action appends after itself."""
    return DECISIONS[type(action)](action, operator, state, context)
