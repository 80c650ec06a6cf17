"""The fold: each event applied to the state at its position (`apply` may update the model it
is handed; every fold starts from a fresh or freshly decoded model).

An operator's decision (an approval, a key, a review, a cycle's close, a dispute, a request for
the stronger agent) is applied
only when its fact is one that a signed action with authority decided, recorded with it
(`domain.state.authority`); a fact appended on its own changes nothing here."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.environment_qa import Finding
from domain.events import (
    AgentRegistered,
    CandidateExcluded,
    CandidateRecorded,
    CycleClosed,
    CycleOpened,
    DisputeOpened,
    DisputeResolved,
    DomainEvent,
    EditionDrafted,
    EvidenceTransformed,
    InstructionsPublished,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    Pinned,
    Pool,
    PoolSelected,
    Project,
    ProjectReviewed,
    PublicationApproved,
    RecordingWithheld,
    RenderMade,
    ReproductionReported,
    ReproductionRequested,
    RerunRequested,
    RunRecorded,
    RunVoided,
    StrongerRequested,
)
from domain.events.methodology import BY_RULE
from domain.events.operators import Review as ReviewAction
from domain.evidence import redaction
from domain.operators import Signatures
from domain.runs import invalid_reason
from domain.state.authority import authorized, fold_authority
from domain.state.methodology import Methodology, set_key
from domain.state.records import (
    Dispute,
    Edition,
    EvidenceCopy,
    Noted,
    Rendered,
    Review,
    Run,
    Step,
)

Decided = (
    ProjectReviewed
    | RunVoided
    | RerunRequested
    | CycleClosed
    | DisputeOpened
    | DisputeResolved
    | ReproductionRequested
    | StrongerRequested
    | CandidateExcluded
    | PoolSelected
)


def apply(
    model: Methodology,
    position: int,
    event: DomainEvent,
    appended_at: datetime,
    signatures: Signatures,
) -> Methodology:
    """`event`, recorded at `position` at `appended_at`, applied to `model`; a signed action's
    signature is checked with `signatures`."""
    match event:  # the most frequent facts first: a class pattern is an isinstance check
        case EvidenceTransformed() | RecordingWithheld():
            _evidence(model, position, event)
        case RunRecorded(run_id=run_id) if event.reproduces is not None:
            model.reproduced[run_id] = Run(position=position, event=event)  # counts nowhere
        case RunRecorded(run_id=run_id):
            model.runs[run_id] = Run(position=position, event=event)
            agent, project, cycle = set_key(event)
            sets = model.sets.setdefault(cycle, {}).setdefault(project, {})
            sets.setdefault(agent, []).append(run_id)
        case RerunRequested(run_id=run_id) if model.withheld(run_id):
            # section 17: a file that cannot be shown safe is withheld and its run repeated
            model.reruns[run_id] = Noted(position=position, reason=event.reason)
        case RerunRequested(run_id=run_id) if event.why in BY_RULE and _invalid_as_recorded(
            model, run_id
        ):
            model.reruns.setdefault(
                run_id, Noted(position=position, reason=event.reason, by_rule=True)
            )
        case ReproductionReported() if _true_report(model, event):
            model.reproduction_reports[event.request] = event
        case InstructionsPublished() | RenderMade():
            _presented(model, position, event)
        case EditionDrafted():
            model.editions[event.version] = Edition(position=position, event=event)
        case AgentRegistered() | CycleOpened():
            _roster(model, position, event)
        case CandidateRecorded():
            model.candidates[event.candidate.project] = position
        case OperatorActed() | PublicationApproved() | OperatorRegistered() | OperatorRevoked():
            fold_authority(model.authority, position, event, appended_at, signatures)
        case (
            ProjectReviewed()
            | RunVoided()
            | RerunRequested()
            | CycleClosed()
            | DisputeOpened()
            | DisputeResolved()
            | ReproductionRequested()
            | StrongerRequested()
            | CandidateExcluded()
            | PoolSelected()
        ) if authorized(model.authority, position, event) and _applies(model, event):
            _decided(model, position, event)
    return model


def _invalid_as_recorded(model: Methodology, run_id: str) -> bool:
    """Sections 7 and 11: a run cut short before its agent started (never recorded) or invalid
    by its own record; repeating it sets nothing aside."""
    run = model.runs.get(run_id)
    return run is None or invalid_reason(run.event) is not None


def _true_report(model: Methodology, report: ReproductionReported) -> bool:
    """Section 18: a reproduction's first report, and only one the recorded runs give (a report
    is derived: one that says otherwise counts nowhere)."""
    if report.request in model.reproduction_reports:
        return False
    request = next(
        (r for r in model.reproductions.get(report.run_id, []) if r.request == report.request),
        None,
    )
    return request is not None and model.reported(request) == report


def _recorded_for(model: Methodology, run_id: str, action: object) -> bool:
    """The run is recorded, and one of the project and cycle a review reviewed."""
    run = model.runs.get(run_id)
    if run is None or not isinstance(action, ReviewAction):
        return run is not None
    return (run.event.project.id, run.event.cycle) == (action.project, action.cycle)


def _applies(model: Methodology, fact: Decided) -> bool:
    """A decided fact names what is there: a voided run is recorded (a review's, a run of the
    project and cycle it reviewed), a dispute is opened once, of a recorded run, and resolved
    once opened; the stronger agent is asked for once per project and cycle; a reproduced run is
    recorded."""
    window = model.authority.window
    match fact:
        case ReproductionRequested(run_id=run_id):
            return run_id in model.runs
        case RunVoided(run_id=run_id) | RerunRequested(run_id=run_id):
            action = window and window.acted.action
            return _recorded_for(model, run_id, action)
        case DisputeOpened() | DisputeResolved():
            return _dispute_applies(model, fact)
        case StrongerRequested():
            return fact.project not in model.stronger_requested.get(fact.cycle, {})
        case CandidateExcluded() | PoolSelected():
            return _pool_applies(model, fact)
    return True


def _pool_applies(model: Methodology, fact: CandidateExcluded | PoolSelected) -> bool:
    """An exclusion names a recorded candidate; a selection, a cycle with a roster and no pool."""
    if isinstance(fact, CandidateExcluded):
        return fact.project in model.candidates
    opened = model.cycles.get(fact.cycle)
    return opened is not None and not opened.projects and fact.cycle not in model.selections


def _dispute_applies(model: Methodology, fact: DisputeOpened | DisputeResolved) -> bool:
    """A dispute is opened once, of a recorded run, and resolved once opened."""
    if isinstance(fact, DisputeOpened):
        return fact.run_id in model.runs and fact.dispute not in model.disputes
    return fact.dispute in model.disputes


def _decided(model: Methodology, position: int, fact: Decided) -> None:
    match fact:
        case ProjectReviewed():
            _review(model, fact.project_id, fact.cycle, position, fact)
        case RunVoided(run_id=run_id, reason=reason):
            model.voided[run_id] = Noted(
                position=position, reason=reason, acted_at=_acted_at(model)
            )
        case RerunRequested(run_id=run_id, reason=reason):
            model.reruns[run_id] = Noted(
                position=position, reason=reason, acted_at=_acted_at(model)
            )
        case CycleClosed():
            model.closed[fact.cycle] = position
        case DisputeOpened() | DisputeResolved():
            _dispute(model, position, fact)
        case ReproductionRequested():
            model.reproductions.setdefault(fact.run_id, []).append(fact)
        case StrongerRequested():
            model.stronger_requested.setdefault(fact.cycle, {})[fact.project] = position
        case CandidateExcluded():
            model.excluded[fact.project] = fact.reason
        case PoolSelected():
            _pool(model, fact)
            model.pools_fixed_at[fact.cycle] = position


def _pool(model: Methodology, selection: PoolSelected) -> None:
    """Section 6: the cycle's pool is the one drawn, each project at its commit, heavy where
    GitHub says it is over 500 MB."""
    model.selections[selection.cycle] = selection
    pools: list[tuple[Pool, Pinned]] = [("public", p) for p in selection.public]
    pools += [("secret", p) for p in selection.secret]
    projects = [
        Project(
            id=p.project,
            source_type="repository",
            pool=pool,
            repo=f"https://github.com/{p.project}",
            commit=p.commit,
            heavy=p.project in selection.heavy,
        )
        for pool, p in pools
    ]
    cycle = model.cycles[selection.cycle]
    model.cycles[selection.cycle] = msgspec.structs.replace(cycle, projects=projects)


def _acted_at(model: Methodology) -> int | None:
    """The position of the signed action whose fact is being applied."""
    window = model.authority.window
    return None if window is None else window.position


def _review(
    model: Methodology, project: str, cycle: str, position: int, review: ProjectReviewed
) -> None:
    finding: Finding = review.finding
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
        named = f"{step.transform}@{step.version}"
        copy.transforms.append(named)
        copy.steps.append(Step(named, step.input_sha256, step.output_sha256))
        for name, count in step.counts.items():
            copy.counts[name] = copy.counts.get(name, 0) + count
    copy.positions.append(position)


def _presented(
    model: Methodology, position: int, event: InstructionsPublished | RenderMade
) -> None:
    """What is published beside a run: the instructions agents had, a run's renders (17)."""
    if isinstance(event, RenderMade):
        made = Rendered(position=position, event=event)
        model.renders.setdefault(event.run_id, []).append(made)
    else:
        model.instructions.setdefault(event.sha256, position)


def _roster(model: Methodology, position: int, event: AgentRegistered | CycleOpened) -> None:
    match event:
        case AgentRegistered():
            model.agents[event.id] = event
        case CycleOpened():
            model.cycles[event.id] = event
            model.pools_fixed_at[event.id] = position


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
