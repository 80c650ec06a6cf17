"""Environment quality control (methodology section 15): "un problema de configuración común
nunca debería puntuarse como un fallo del agent"."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Literal, get_args

from domain.errors import Rejected
from domain.events import ProjectReviewed, RerunRequested, RunVoided
from domain.events.operators import Review
from domain.scoring import Outcome, passed

Finding = Literal["environment", "project"]
FINDINGS: tuple[Finding, ...] = get_args(Finding)
AGENTS_WITHOUT_ROSTER = 2
"""Without a cycle record, "every agent" needs at least two agents to mean anything."""


def is_under_review(
    outcomes_by_agent: Mapping[str, Sequence[Outcome]], roster: Collection[str] | None
) -> bool:
    """Methodology section 15, within one cycle: a project is under review when every agent
    that attempted it there failed all its valid attempts: at least two agents, or, where the
    cycle has a record, its whole roster."""
    tried = {agent for agent, outcomes in outcomes_by_agent.items() if outcomes}
    if any(passed(o) for outcomes in outcomes_by_agent.values() for o in outcomes):
        return False
    if roster is not None:
        return bool(tried) and set(roster) <= tried
    return len(tried) >= AGENTS_WITHOUT_ROSTER


def environment_fault(note: str) -> str:
    return f"environment fault: {note}" if note else "environment fault"


def review_project(
    record: Review, reviewer: str, under_review: bool, failed_runs: Iterable[str]
) -> list[ProjectReviewed | RunVoided | RerunRequested]:
    """Methodology section 15: a person reviews a project under review in a cycle. Finding
    `environment`: the cycle's failed runs on it were our fault: each is voided (never counted)
    and run again. Finding `project`: the failures stand and count."""
    if not under_review:
        raise Rejected(
            "section 15", f"project {record.project} is not under review in {record.cycle}"
        )
    events: list[ProjectReviewed | RunVoided | RerunRequested] = [
        ProjectReviewed(
            project_id=record.project,
            cycle=record.cycle,
            finding=record.finding,
            reviewer=reviewer,
            note=record.note,
        )
    ]
    if record.finding == "environment":
        reason = environment_fault(record.note)
        for run_id in failed_runs:
            events += [
                RunVoided(run_id=run_id, reason=reason),
                RerunRequested(run_id=run_id, reason=reason, why="environment_review"),
            ]
    return events
