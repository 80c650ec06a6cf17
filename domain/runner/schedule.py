"""What a cycle needs run (methodology section 7, point 4, and section 11): three independent
runs per roster agent and project; the verdict chain's stronger agent before v1.3, and only on
request from it. Run ids are fixed by what they are, so planning again adds nothing."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from domain.cycles import profile
from domain.editions import version_key
from domain.errors import Rejected
from domain.events import AgentRegistered, CycleOpened, Project, RunScheduled
from domain.leaderboard import RUNS_PER_SET
from domain.runner.budgets import budget_seconds, budget_tier
from domain.runner.config import Budgets
from domain.verdict import TWO_FULL_ATTEMPTS_FROM


def run_id(cycle: str, agent: str, project: Project, attempt: str, number: int) -> str:
    """`<cycle>.<agent>.<project, slashes as underscores>.<attempt><n>`."""
    return f"{cycle}.{agent}.{project.id.replace('/', '_')}.{attempt}{number}"


def planned(
    cycle: CycleOpened, agents: dict[str, AgentRegistered], edition: str
) -> list[tuple[AgentRegistered, Project, str, int]]:
    """Every attempt the cycle needs: (agent, project, attempt kind, number)."""
    chain = version_key(edition) < TWO_FULL_ATTEMPTS_FROM and cycle.stronger_agent
    wanted = []
    for project in cycle.projects:
        for agent_id in cycle.agents:
            wanted += [
                (agents[agent_id], project, "standard", n) for n in range(1, RUNS_PER_SET + 1)
            ]
        if chain:
            wanted.append((agents[cycle.stronger_agent], project, "stronger", 1))  # type: ignore[index]
    return wanted


def plan_cycle(
    cycle: CycleOpened,
    agents: dict[str, AgentRegistered],
    edition: str,
    *,
    known: Collection[str],
    budgets: Budgets,
    grace_seconds: float,
    now: datetime,
) -> list[RunScheduled]:
    """The cycle's runs not yet scheduled, each with the budget of its tier under `edition`."""
    runs = []
    for agent, project, attempt, number in planned(cycle, agents, edition):
        identity = run_id(cycle.id, agent.id, project, attempt, number)
        if identity in known:
            continue
        if agent.runtime is None:
            raise Rejected("section 4", f"agent {agent.id} has no runtime to run it with")
        tier = budget_tier(project, edition)
        runs.append(
            RunScheduled(
                run_id=identity,
                cycle=cycle.id,
                edition=edition,
                project=project,
                agent=profile(agent),
                runtime=agent.runtime,
                key=agent.key,
                attempt=attempt,  # type: ignore[arg-type]
                tier=tier,
                budget_seconds=budget_seconds(tier, budgets),
                grace_seconds=grace_seconds,
                scheduled_at=now,
            )
        )
    return runs
