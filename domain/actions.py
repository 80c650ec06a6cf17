"""What each operator action decides, given the state it was signed against (ARCHITECTURE.md,
"Operators" and "Authority"): the facts appended after the signed action itself, or a refusal
naming the rule. The same functions decide when an action is submitted and whenever a fold reads
it: a fold applies what the signed action decides, never a fact on its own."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, NamedTuple

from domain.environment_qa import environment_fault, review_project
from domain.errors import Rejected
from domain.events import (
    AliasApproved,
    CandidateExcluded,
    CandidateRecorded,
    CycleClosed,
    DisputeOpened,
    DisputeResolved,
    DomainEvent,
    HoldReleased,
    OperatorRegistered,
    OperatorRevoked,
    PoolSelected,
    ProjectReviewCleared,
    ProjectReviewed,
    PublicationApproved,
    ReproductionRequested,
    RerunRequested,
    RevisionApproved,
    RunVoided,
    StreamHeadsCommitted,
    StrongerRequested,
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
    ExcludeCandidate,
    InvalidateRuns,
    OperatorAction,
    ReleaseHold,
    RequestReproduction,
    RequestStronger,
    Review,
    RevokeOperator,
    SelectPool,
)
from domain.operators import Signatures
from domain.pool import (
    PoolTooSmall,
    commitment,
    eligible,
    heavy_repository,
    pinned,
    previous_secret,
    select_pools,
)
from domain.reproduction import reproducible, reproduction_runs
from domain.state.methodology import Methodology
from domain.state.records import Authority

AuthorityFact = PublicationApproved | OperatorRegistered | OperatorRevoked


class Context(NamedTuple):
    """What an action is judged against besides the methodology's state: the position it
    follows (the head it was submitted at), how keys are read, and SI-IQ's open holds and frozen
    benchmarks (read for the actions that release or approve them)."""

    head: int
    signatures: Signatures
    open_holds: Collection[str] = frozenset()
    frozen: Collection[str] = frozenset()
    draw: PoolDraw | None = None


class PoolDraw(NamedTuple):
    """What a `select_pool` draws from (read only for it): every candidate's last record at the
    head, the seed (of the ledger's root there) and a fresh salt for the commitment."""

    candidates: Sequence[CandidateRecorded]
    seed: str
    salt: str


def approve_publication(
    action: ApprovePublication, operator: str, authority: Authority, head: int
) -> list[AuthorityFact]:
    """Methodology section 1: a person approves what the public sees, as of a position the
    ledger held when the approval was made, each approval above the one before (what the
    public saw never goes back)."""
    if action.position > head:
        raise Rejected("section 1", f"position {action.position} is past the head ({head})")
    last = authority.published()
    if last is not None and action.position <= last.position:
        raise Rejected(
            "section 1",
            f"position {action.position} is not above the last approval ({last.position})",
        )
    return [PublicationApproved(position=action.position, operator=operator)]


def add_operator(
    action: AddOperator, authority: Authority, new_key_id: str | None
) -> list[AuthorityFact]:
    """A name is one key at a time: a name whose key is not revoked is not registered again;
    the public key must parse and carry the operator's name."""
    if new_key_id is None:
        raise Rejected("operators", f"the public key of {action.name} is not {action.name}'s")
    for key in authority.operators.values():
        if key.name == action.name and key.revoked_at is None:
            raise Rejected("operators", f"operator {action.name} already has key {key.key_id}")
    return [
        OperatorRegistered(
            name=action.name, key_id=new_key_id, public_key=action.public_key, role=action.role
        )
    ]


def revoke_operator(action: RevokeOperator, authority: Authority) -> list[AuthorityFact]:
    """A revoked key signs nothing more; the last owner's key is never revoked."""
    live = [k for k in authority.operators.values() if k.revoked_at is None]
    key = next((k for k in live if k.name == action.name), None)
    if key is None:
        raise Rejected("operators", f"operator {action.name} has no key to revoke")
    if key.role == "owner" and sum(k.role == "owner" for k in live) == 1:
        raise Rejected("operators", f"{action.name} holds the last owner's key")
    return [OperatorRevoked(name=key.name, key_id=key.key_id)]


def authority_facts(
    action: OperatorAction,
    operator: str,
    authority: Authority,
    head: int,
    signatures: Signatures,
) -> list[AuthorityFact]:
    """What an action decides about authority itself (keys and approvals), as of `head` (the
    position before it); nothing for the others. A refusal names its rule."""
    match action:
        case ApprovePublication():
            return approve_publication(action, operator, authority, head)
        case AddOperator():
            new_key_id = signatures.key_id(action.public_key, action.name)
            return add_operator(action, authority, new_key_id)
        case RevokeOperator():
            return revoke_operator(action, authority)
    return []


def close_cycle(action: CloseCycle, operator: str, state: Methodology) -> list[DomainEvent]:
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


def disputed_run(dispute: str) -> str:
    """The run a dispute (`<run id>.<n>`) is of."""
    return dispute.rpartition(".")[0]


def open_dispute(action: DisputeOpen, operator: str, state: Methodology) -> list[DomainEvent]:
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


def corrected_after(dispute: str, note: str) -> str:
    """Why a disputed run is voided and run again (section 19: "corregimos el registro con una
    nota")."""
    return f"corrected after dispute {dispute}: {note}"


def resolve_dispute(action: DisputeResolve, operator: str, state: Methodology) -> list[DomainEvent]:
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
        reason = corrected_after(dispute.id, action.note)
        events += [
            RunVoided(run_id=dispute.run_id, reason=reason),
            RerunRequested(run_id=dispute.run_id, reason=reason, why="dispute"),
        ]
    return events


def review(action: Review, operator: str, state: Methodology) -> list[DomainEvent]:
    """Methodology section 15, as a person's signed finding."""
    under_review = action.project in state.under_review(action.cycle)
    failed = state.failed_runs(action.cycle, action.project)
    return list(review_project(action, operator, under_review, failed))


def invalidate_runs(action: InvalidateRuns, _: str, state: Methodology) -> list[DomainEvent]:
    """Methodology section 20: recorded runs found invalid after the fact, each voided with the
    reason (and asked for again with `rerun`), all or none: a run not recorded, already
    invalid, or named twice refuses the whole action, naming it."""
    events: list[DomainEvent] = []
    for run_id in action.runs:
        run = state.runs.get(run_id)
        if run is None:
            raise Rejected("section 20", f"run {run_id} is not recorded: nothing is invalidated")
        if (already := state.judge(run).invalid_reason) is not None:
            raise Rejected(
                "section 20", f"run {run_id} is already invalid ({already}): nothing is invalidated"
            )
        if action.runs.count(run_id) > 1:
            raise Rejected("section 20", f"run {run_id} is named twice: nothing is invalidated")
        events.append(RunVoided(run_id=run_id, reason=action.reason))
        if action.rerun:
            events.append(RerunRequested(run_id=run_id, reason=action.reason, why="invalidated"))
    return events


def request_reproduction(
    action: RequestReproduction, operator: str, state: Methodology
) -> list[DomainEvent]:
    """Methodology section 18: a recorded run is run again `runs` times as it ran; the runs are
    numbered on after its earlier reproductions."""
    run = state.runs.get(action.run_id) or state.reproduced.get(action.run_id)
    if run is None:
        raise Rejected("section 18", f"run {action.run_id} is not recorded: nothing to reproduce")
    reproducible(run.event)
    earlier = state.reproductions.get(action.run_id, [])
    return [
        ReproductionRequested(
            request=f"{action.run_id}/reproduction/{len(earlier) + 1}",
            run_id=action.run_id,
            runs=reproduction_runs(action.run_id, sum(len(r.runs) for r in earlier), action.runs),
            requested_by=action.requested_by,
            note=action.note,
        )
    ]


def request_stronger(
    action: RequestStronger, operator: str, state: Methodology
) -> list[DomainEvent]:
    """Methodology section 11: "se puede ejecutar un agent más potente si se solicita": the
    cycle's stronger agent on a project of its pool, asked for once; a cycle without a record or
    a stronger agent, or a project outside its pool, refuses it."""
    cycle = state.cycles.get(action.cycle)
    if cycle is None:
        raise Rejected("section 11", f"cycle {action.cycle} has no record")
    if cycle.stronger_agent is None:
        raise Rejected("section 11", f"cycle {action.cycle} names no stronger agent")
    if action.project not in {p.id for p in cycle.projects}:
        raise Rejected(
            "section 11", f"project {action.project} is not in cycle {action.cycle}'s pool"
        )
    asked = state.stronger_requested.get(action.cycle, {}).get(action.project)
    if asked is not None:
        raise Rejected(
            "section 11",
            f"the stronger agent on {action.project} in {action.cycle} was asked for at {asked}",
        )
    return [StrongerRequested(project=action.project, cycle=action.cycle, operator=operator)]


def exclude_candidate(
    action: ExcludeCandidate, operator: str, state: Methodology
) -> list[DomainEvent]:
    """Section 6: a recorded candidate kept out of the pool by a person, naming why."""
    if action.project not in state.candidates:
        raise Rejected("section 6", f"{action.project} is no recorded candidate")
    if not action.reason.strip():
        raise Rejected("section 6", f"excluding {action.project} needs a reason")
    return [CandidateExcluded(project=action.project, reason=action.reason, operator=operator)]


MethodologyDecision = Callable[[Any, str, Methodology], list[DomainEvent]]
METHODOLOGY_DECISIONS: dict[type[Action], MethodologyDecision] = {
    Review: review,
    CloseCycle: close_cycle,
    DisputeOpen: open_dispute,
    DisputeResolve: resolve_dispute,
    InvalidateRuns: invalidate_runs,
    RequestReproduction: request_reproduction,
    RequestStronger: request_stronger,
    ExcludeCandidate: exclude_candidate,
}


def methodology_facts(
    action: OperatorAction, operator: str, state: Methodology
) -> list[DomainEvent]:
    """What an action decides about the methodology's facts (reviews, cycles, disputes);
    nothing for the others."""
    decision = METHODOLOGY_DECISIONS.get(type(action))
    return [] if decision is None else decision(action, operator, state)


def release_hold(
    action: ReleaseHold, operator: str, open_holds: Collection[str]
) -> list[DomainEvent]:
    """SI-IQ section 8: a held value (or a halted publication) released by a person, with the
    reason; a hold that is not open has nothing to release."""
    if action.hold not in open_holds:
        raise Rejected("SI-IQ section 8", f"hold {action.hold} is not open: nothing to release")
    return [HoldReleased(hold=action.hold, note=action.note, operator=operator)]


def approve_revision(
    action: ApproveRevision, operator: str, frozen: Collection[str]
) -> list[DomainEvent]:
    """SI-IQ section 8: a frozen benchmark's revision approved by a person."""
    if action.benchmark not in frozen:
        raise Rejected(
            "SI-IQ section 8", f"benchmark {action.benchmark} is not frozen: no revision to approve"
        )
    return [
        RevisionApproved(benchmark=action.benchmark, snapshot=action.snapshot, operator=operator)
    ]


def approve_alias(action: ApproveAlias, operator: str) -> list[DomainEvent]:
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


def siiq_facts(
    action: OperatorAction, operator: str, open_holds: Collection[str], frozen: Collection[str]
) -> list[DomainEvent]:
    """What an action decides about SI-IQ (holds, revisions, aliases); nothing for the
    others."""
    match action:
        case ReleaseHold():
            return release_hold(action, operator, open_holds)
        case ApproveRevision():
            return approve_revision(action, operator, frozen)
        case ApproveAlias():
            return approve_alias(action, operator)
    return []


def select_pool(
    action: SelectPool, operator: str, state: Methodology, draw: PoolDraw
) -> list[DomainEvent]:
    """Section 6: a cycle with a roster and no pool yet gets its pools, drawn from the eligible
    candidates (none an operator excluded), the secret one committed to."""
    cycle = state.cycles.get(action.cycle)
    if cycle is None:
        raise Rejected("section 6", f"cycle {action.cycle} has no record (its roster) yet")
    if cycle.projects or action.cycle in state.selections:
        raise Rejected("section 6", f"cycle {action.cycle} has its pool already")
    eligible_now = [
        record.candidate
        for record in draw.candidates
        if eligible(record.criteria, record.candidate.project in state.excluded)
    ]
    earlier = {c: s.secret for c, s in state.selections.items()}
    try:
        pools = select_pools(
            eligible_now,
            opens=action.opens,
            size=action.size,
            previous_secret=previous_secret(earlier, action.cycle),
            seed=draw.seed,
        )
    except PoolTooSmall as e:
        raise Rejected("section 6", f"cycle {action.cycle}: {e}") from e
    secret = pinned(pools.secret)
    chosen = pools.public + pools.secret
    return [
        PoolSelected(
            cycle=action.cycle,
            opens=action.opens,
            size=action.size,
            seed=draw.seed,
            public=pinned(pools.public),
            secret=secret,
            commitment=commitment(secret, draw.salt),
            salt=draw.salt,
            heavy=sorted(c.project for c in chosen if heavy_repository(c.size_kb)),
            operator=operator,
        )
    ]


def decide(
    action: OperatorAction, operator: str, state: Methodology, context: Context
) -> list[DomainEvent]:
    """The facts an admitted action appends after itself."""
    if isinstance(action, SelectPool):
        if context.draw is None:
            raise Rejected("section 6", "select_pool is judged with the candidates at its head")
        return select_pool(action, operator, state, context.draw)
    return [
        *authority_facts(action, operator, state.authority, context.head, context.signatures),
        *methodology_facts(action, operator, state),
        *siiq_facts(action, operator, context.open_holds, context.frozen),
    ]


NAMED: dict[tuple[type[Action], type[DomainEvent]], tuple[tuple[str, str], ...]] = {
    (ApprovePublication, PublicationApproved): (("position", "position"),),
    (ApprovePublication, StreamHeadsCommitted): (("position", "position"),),
    (AddOperator, OperatorRegistered): (
        ("name", "name"),
        ("public_key", "public_key"),
        ("role", "role"),
    ),
    (RevokeOperator, OperatorRevoked): (("name", "name"),),
    (CloseCycle, CycleClosed): (("cycle", "cycle"),),
    (Review, ProjectReviewed): (
        ("project_id", "project"),
        ("cycle", "cycle"),
        ("finding", "finding"),
        ("note", "note"),
    ),
    (DisputeOpen, DisputeOpened): (
        ("run_id", "run_id"),
        ("claimant", "claimant"),
        ("claim", "claim"),
    ),
    (DisputeResolve, DisputeResolved): (
        ("dispute", "dispute"),
        ("outcome", "outcome"),
        ("note", "note"),
    ),
    (RequestReproduction, ReproductionRequested): (
        ("run_id", "run_id"),
        ("requested_by", "requested_by"),
        ("note", "note"),
    ),
    (RequestStronger, StrongerRequested): (("project", "project"), ("cycle", "cycle")),
    (ExcludeCandidate, CandidateExcluded): (("project", "project"), ("reason", "reason")),
    (SelectPool, PoolSelected): (("cycle", "cycle"), ("opens", "opens"), ("size", "size")),
    (ReleaseHold, HoldReleased): (("hold", "hold"), ("note", "note")),
    (ApproveRevision, RevisionApproved): (("benchmark", "benchmark"), ("snapshot", "snapshot")),
    (ApproveAlias, AliasApproved): (
        ("source", "source"),
        ("name", "name"),
        ("group", "group"),
        ("justification", "justification"),
    ),
}
"""Each kind of fact an action decides, and what it names as the action named it (the fact's
field, the action's)."""
SIGNER: dict[type[DomainEvent], str] = {ProjectReviewed: "reviewer"}
"""The field of a fact that names who decided it, where it is not `operator` (keys' facts name
none)."""


def binds(action: OperatorAction, operator: str, fact: DomainEvent) -> bool:
    """Whether `fact` is one that the signed `action` by `operator` decides: its kind, and the
    things it names. A decision fact that no action with authority binds counts nowhere."""
    named = NAMED.get((type(action), type(fact)))
    if named is not None:
        signer = getattr(fact, SIGNER.get(type(fact), "operator"), operator)
        same = all(getattr(fact, f) == getattr(action, a) for f, a in named)
        return same and signer == operator
    if isinstance(fact, RunVoided | RerunRequested):
        return repeats(action, fact)
    return False


def repeats(action: OperatorAction, fact: RunVoided | RerunRequested) -> bool:
    """Whether a run voided or asked for again is one `action` sets aside: an environment review's
    (section 15), a dispute resolved by a rerun, of its own run (section 19), or one of the runs
    invalidated after the fact (section 20)."""
    match action:
        case Review(finding="environment"):
            return fact.reason == environment_fault(action.note)
        case DisputeResolve(outcome="rerun"):
            reason = corrected_after(action.dispute, action.note)
            return (fact.run_id, fact.reason) == (disputed_run(action.dispute), reason)
        case InvalidateRuns():
            asked = isinstance(fact, RunVoided) or action.rerun
            return asked and fact.run_id in action.runs and fact.reason == action.reason
    return False


DECISION_FACTS: tuple[type[DomainEvent], ...] = (
    PublicationApproved,
    StreamHeadsCommitted,
    OperatorRegistered,
    OperatorRevoked,
    CycleClosed,
    ProjectReviewed,
    ProjectReviewCleared,
    RunVoided,
    RerunRequested,
    DisputeOpened,
    DisputeResolved,
    ReproductionRequested,
    StrongerRequested,
    CandidateExcluded,
    PoolSelected,
    HoldReleased,
    RevisionApproved,
    AliasApproved,
)
"""The facts only an operator's signed action decides (a rerun request also comes with a
withheld recording, from the evidence's own rules; a `ProjectReviewCleared`, the unsigned review
of before signed actions, no action decides any more)."""
