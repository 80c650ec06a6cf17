"""What a cycle needs run (methodology section 7, point 4, and section 11): three independent
runs per roster agent and project; the verdict chain's stronger agent before v1.3, and only on
request from it. Run ids are fixed by what they are, so planning again adds nothing."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime

import msgspec

from domain.cycles import profile
from domain.editions import version_key
from domain.errors import Rejected
from domain.events import (
    AgentRegistered,
    CycleOpened,
    Project,
    ReproductionRequested,
    RunRecorded,
    RunScheduled,
)
from domain.leaderboard import RUNS_PER_SET
from domain.runner.budgets import budget_seconds, budget_tier
from domain.runner.config import Budgets
from domain.runner.naming import rerun_id
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


class Reruns(msgspec.Struct, frozen=True, kw_only=True):
    """What the open requests (reruns, reproductions) schedule, and those that cannot be run
    yet, with why."""

    scheduled: list[RunScheduled]
    waiting: dict[str, str]


def as_it_ran(
    run_id: str,
    original: RunScheduled | None,
    record: RunRecorded | None,
    agents: Mapping[str, AgentRegistered],
    *,
    budgets: Budgets,
    grace_seconds: float,
    now: datetime,
) -> RunScheduled | str:
    """The run scheduled again as it ran (pinned commit, agent, budget tier): the original's
    schedule when Argusic ran it, else its record's (an ingested run) with its agent's
    registered runtime; why not, when it cannot be."""
    if original is not None:
        return msgspec.structs.replace(original, scheduled_at=now, not_before=None)
    if record is None:
        return "it is not recorded"
    agent = agents.get(record.agent.id)
    if agent is None or agent.runtime is None:
        return f"agent {record.agent.id} has no runtime to run it with (section 4)"
    tier = budget_tier(record.project, record.edition)
    return RunScheduled(
        run_id=run_id,
        cycle=record.cycle,
        edition=record.edition,
        project=record.project,
        agent=record.agent,
        runtime=agent.runtime,
        key=agent.key,
        attempt=record.attempt,
        tier=tier,
        budget_seconds=budget_seconds(tier, budgets),
        grace_seconds=grace_seconds,
        scheduled_at=now,
    )


def plan_reruns(
    requested: Iterable[str],
    originals: Mapping[str, RunScheduled],
    recorded: Mapping[str, RunRecorded],
    agents: Mapping[str, AgentRegistered],
    *,
    known: Collection[str],
    budgets: Budgets,
    grace_seconds: float,
    now: datetime,
) -> Reruns:
    """Sections 11, 15, 17, 19 and 20: each run asked for again, once, as `<id>~r<N>` replacing
    it, as it ran."""
    scheduled, waiting = [], {}
    for run_id in requested:
        again = rerun_id(run_id)
        if again in known:
            continue
        base = as_it_ran(
            run_id,
            originals.get(run_id),
            recorded.get(run_id),
            agents,
            budgets=budgets,
            grace_seconds=grace_seconds,
            now=now,
        )
        if isinstance(base, str):
            waiting[run_id] = base
            continue
        scheduled.append(msgspec.structs.replace(base, run_id=again, replaces=run_id))
    return Reruns(scheduled=scheduled, waiting=waiting)


def plan_reproductions(
    requests: Iterable[ReproductionRequested],
    originals: Mapping[str, RunScheduled],
    recorded: Mapping[str, RunRecorded],
    agents: Mapping[str, AgentRegistered],
    *,
    known: Collection[str],
    budgets: Budgets,
    grace_seconds: float,
    now: datetime,
) -> Reruns:
    """Section 18: each run of a reproduction request, once, as the original ran, with its
    image (by digest), its standard instructions (by SHA-256) and its budget pinned."""
    scheduled, waiting = [], {}
    for request in requests:
        record = recorded.get(request.run_id)
        base = as_it_ran(
            request.run_id,
            originals.get(request.run_id),
            record,
            agents,
            budgets=budgets,
            grace_seconds=grace_seconds,
            now=now,
        )
        for again in request.runs:
            if again in known:
                continue
            if isinstance(base, str) or record is None:
                waiting[again] = base if isinstance(base, str) else "it is not recorded"
                continue
            budget = base.budget_seconds
            if record.budget_minutes is not None:
                budget = record.budget_minutes * 60
            scheduled.append(
                msgspec.structs.replace(
                    base,
                    run_id=again,
                    replaces=None,
                    reproduces=request.run_id,
                    image_digest=record.image_digest,
                    instructions_sha256=record.instructions_sha256,
                    budget_seconds=budget,
                )
            )
    return Reruns(scheduled=scheduled, waiting=waiting)
