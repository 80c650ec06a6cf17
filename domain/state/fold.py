"""The fold: each event applied to the state at its position (`apply` may update the model it
is handed; every fold starts from a fresh or freshly decoded model)."""

from __future__ import annotations

from domain.environment_qa import Finding
from domain.events import (
    AgentRegistered,
    CycleClosed,
    CycleOpened,
    DisputeOpened,
    DisputeResolved,
    DomainEvent,
    EditionDrafted,
    EvidenceTransformed,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    ProjectReviewCleared,
    ProjectReviewed,
    PublicationApproved,
    RecordingWithheld,
    RerunRequested,
    RunRecorded,
    RunVoided,
)
from domain.evidence import redaction
from domain.state.methodology import Methodology, set_key
from domain.state.records import (
    Approval,
    Dispute,
    Edition,
    EvidenceCopy,
    Noted,
    OperatorKey,
    Review,
    Run,
)


def apply(model: Methodology, position: int, event: DomainEvent) -> Methodology:
    match event:  # the most frequent facts first: a class pattern is an isinstance check
        case EvidenceTransformed() | RecordingWithheld():
            _evidence(model, position, event)
        case RunRecorded(run_id=run_id):
            model.runs[run_id] = Run(position=position, event=event)
            agent, project, cycle = set_key(event)
            sets = model.sets.setdefault(cycle, {}).setdefault(project, {})
            sets.setdefault(agent, []).append(run_id)
        case ProjectReviewed():
            _review(model, event.project_id, event.cycle, position, event)
        case ProjectReviewCleared():
            for cycle, projects in model.sets.items():
                if event.project_id in projects:
                    _review(model, event.project_id, cycle, position, event)
        case RunVoided(run_id=run_id, reason=reason):
            model.voided[run_id] = Noted(position=position, reason=reason)
        case RerunRequested(run_id=run_id, reason=reason):
            model.reruns[run_id] = Noted(position=position, reason=reason)
        case EditionDrafted():
            model.editions[event.version] = Edition(position=position, event=event)
        case AgentRegistered() | CycleOpened() | CycleClosed():
            _roster(model, position, event)
        case DisputeOpened() | DisputeResolved():
            _dispute(model, position, event)
        case OperatorActed() | OperatorRegistered() | OperatorRevoked() | PublicationApproved():
            _operators(model, position, event)
    return model


def _review(
    model: Methodology,
    project: str,
    cycle: str,
    position: int,
    review: ProjectReviewed | ProjectReviewCleared,
) -> None:
    finding: Finding = review.finding if isinstance(review, ProjectReviewed) else "project"
    model.reviews.setdefault(project, {}).setdefault(cycle, []).append(
        Review(position=position, finding=finding, reviewer=review.reviewer, note=review.note)
    )


def _evidence(
    model: Methodology, position: int, step: EvidenceTransformed | RecordingWithheld
) -> None:
    copies = model.evidence.setdefault(step.run_id, {})
    copy = copies.get(step.kind)
    if copy is None:  # not built for every step: a file has one copy and several steps
        copy = copies[step.kind] = EvidenceCopy(raw_sha256=step.input_sha256)
    if isinstance(step, RecordingWithheld):
        copy.withheld, copy.served_sha256 = step.reason, None
    else:
        copy.served_sha256 = step.output_sha256
        if step.transform == redaction.NAME:
            copy.stored_sha256 = step.output_sha256
        copy.transforms.append(f"{step.transform}@{step.version}")
        for name, count in step.counts.items():
            copy.counts[name] = copy.counts.get(name, 0) + count
    copy.positions.append(position)


def _roster(
    model: Methodology, position: int, event: AgentRegistered | CycleOpened | CycleClosed
) -> None:
    match event:
        case AgentRegistered():
            model.agents[event.id] = event
        case CycleOpened():
            model.cycles[event.id] = event
        case CycleClosed():
            model.closed[event.cycle] = position


def _dispute(model: Methodology, position: int, event: DisputeOpened | DisputeResolved) -> None:
    if isinstance(event, DisputeOpened):
        model.disputes[event.dispute] = Dispute(
            id=event.dispute,
            run_id=event.run_id,
            claimant=event.claimant,
            claim=event.claim,
            opened_at=position,
        )
    else:
        dispute = model.disputes[event.dispute]
        dispute.outcome, dispute.note, dispute.resolved_at = event.outcome, event.note, position


def _operators(
    model: Methodology,
    position: int,
    event: OperatorActed | OperatorRegistered | OperatorRevoked | PublicationApproved,
) -> None:
    match event:
        case OperatorActed():
            model.sequences[event.key_id] = event.sequence
        case OperatorRegistered():
            model.operators[event.key_id] = OperatorKey(
                name=event.name,
                key_id=event.key_id,
                public_key=event.public_key,
                role=event.role,
                registered_at=position,
            )
        case OperatorRevoked():
            model.operators[event.key_id].revoked_at = position
        case PublicationApproved():
            model.approvals.append(
                Approval(position=event.position, at=position, operator=event.operator)
            )
