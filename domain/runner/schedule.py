"""What a cycle needs run (methodology section 7, point 4, and section 11): three independent
runs per roster agent and project, then section 11's verdict chain by the edition in force (before
v1.3 a retry and the stronger agent, each once the step before failed; from it the stronger agent
only on request). Run ids are fixed by what they are, so planning again adds nothing."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Literal, NamedTuple

import msgspec

from domain.cycles import profile
from domain.editions import version_key
from domain.errors import Rejected
from domain.events import (
    AgentRegistered,
    AttemptKind,
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
from domain.scoring import Outcome, passed
from domain.verdict import TWO_FULL_ATTEMPTS_FROM


def run_id(cycle: str, agent: str, project: Project, attempt: str, number: int) -> str:
    """`<cycle>.<agent>.<project, slashes as underscores>.<attempt><n>`."""
    return f"{cycle}.{agent}.{project.id.replace('/', '_')}.{attempt}{number}"


def planned(cycle: CycleOpened, project: Project) -> list[tuple[str, str]]:
    """Every standard attempt the cycle needs on `project`: (agent, run id)."""
    return [
        (agent_id, run_id(cycle.id, agent_id, project, "standard", number))
        for agent_id in cycle.agents
        for number in range(1, RUNS_PER_SET + 1)
    ]


class Plan(NamedTuple):
    """What to schedule it with: the budget tiers' minutes, the grace after, the time now."""

    budgets: Budgets
    grace_seconds: float
    now: datetime


def scheduled_run(
    identity: str,
    agent: AgentRegistered,
    project: Project,
    *,
    cycle: str,
    attempt: AttemptKind,
    edition: str,
    plan: Plan,
) -> RunScheduled:
    """One attempt, with the budget of its tier under `edition` (section 7, point 3)."""
    if agent.runtime is None:
        raise Rejected("section 4", f"agent {agent.id} has no runtime to run it with")
    tier = budget_tier(project, edition)
    return RunScheduled(
        run_id=identity,
        cycle=cycle,
        edition=edition,
        project=project,
        agent=profile(agent),
        runtime=agent.runtime,
        key=agent.key,
        attempt=attempt,
        tier=tier,
        budget_seconds=budget_seconds(tier, plan.budgets),
        grace_seconds=plan.grace_seconds,
        scheduled_at=plan.now,
    )


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
    """The cycle's standard runs not yet scheduled, each with its budget under `edition`."""
    plan = Plan(budgets, grace_seconds, now)
    return [
        scheduled_run(
            identity,
            agents[agent_id],
            project,
            cycle=cycle.id,
            attempt="standard",
            edition=edition,
            plan=plan,
        )
        for project in cycle.projects
        for agent_id, identity in planned(cycle, project)
        if identity not in known
    ]


class Planned(msgspec.Struct, frozen=True, kw_only=True):
    """What planning schedules, and what cannot be run yet (run id: why)."""

    scheduled: list[RunScheduled]
    waiting: dict[str, str]


Standing = Literal["open", "passed", "failed", "void"]
"""Where one planned attempt stands: to run or running, passed, failed, or ended with no valid
outcome and nothing repeating it (cancelled, set aside without a rerun)."""


class Tried(NamedTuple):
    """A run as the verdict chain reads it: scheduled under `edition`; `closed` once it ended;
    its valid outcome once recorded (None while it is not, or when it is invalid)."""

    edition: str
    closed: bool
    outcome: Outcome | None


def standing(identity: str, tried: Callable[[str], Tried | None]) -> Standing:
    """Methodology section 11, one planned attempt over its reruns (`<id>`, `<id>~r2`, ...): an
    attempt our tooling cut short is invalid and never counts, and its rerun stands in for it;
    a valid pass stands at once."""
    runs = []
    while (run := tried(identity)) is not None:
        runs.append(run)
        identity = rerun_id(identity)
    if any(r.outcome is not None and passed(r.outcome) for r in runs):
        return "passed"
    if not runs or not all(r.closed for r in runs):
        return "open"
    return "failed" if any(r.outcome is not None for r in runs) else "void"


def retry_due(standard: Sequence[Standing]) -> bool:
    """Methodology section 11, step 2 (before v1.3): "si falló, un reintento con el mismo agent":
    every standard attempt ended, none passed, at least one failed."""
    return "failed" in standard and set(standard) <= {"failed", "void"}


def stronger_due(retry: Standing) -> bool:
    """Methodology section 11, step 3 (before v1.3): still failing after a valid retry, the
    stronger agent runs; an invalid retry is repeated by its rerun, never counted."""
    return retry == "failed"


def chain_due(
    cycle: CycleOpened,
    project: Project,
    edition: str,
    tried: Callable[[str], Tried | None],
    *,
    requested: bool,
) -> list[tuple[str, AttemptKind]]:
    """Methodology section 11, what the verdict chain of `project` asks for now, under the
    edition its standard attempts ran with: before v1.3 the standard agent's retry once the
    standard attempts failed, then the stronger agent once the retry failed too, stopping at the
    first pass; from v1.3 nothing on its own (the standard attempts are the two full ones). The
    stronger agent also runs when a person asked for it (`requested`; from v1.3 the only way)."""
    standard_agent, stronger_agent = cycle.agents[0], cycle.stronger_agent
    standard = [standing(identity, tried) for _, identity in planned(cycle, project)]
    retry = version_key(edition) < TWO_FULL_ATTEMPTS_FROM and retry_due(standard)
    retried = run_id(cycle.id, standard_agent, project, "retry", 1)
    stronger = requested or (retry and stronger_due(standing(retried, tried)))
    due: list[tuple[str, AttemptKind]] = [(standard_agent, "retry")] if retry else []
    return [*due, (stronger_agent, "stronger")] if stronger and stronger_agent else due


def plan_chain(
    cycle: CycleOpened,
    agents: Mapping[str, AgentRegistered],
    tried: Callable[[str], Tried | None],
    requested: Collection[str],
    plan: Plan,
) -> Planned:
    """Methodology section 11: each project's next attempts of its verdict chain (`requested`:
    the projects whose stronger agent a person asked for), once each, under the edition its
    standard attempts were scheduled with (none before they are); an agent without a runtime
    waits, named with why."""
    scheduled, waiting = [], {}
    for project in cycle.projects:
        first = tried(run_id(cycle.id, cycle.agents[0], project, "standard", 1))
        if first is None:
            continue
        due = chain_due(cycle, project, first.edition, tried, requested=project.id in requested)
        for agent_id, attempt in due:
            identity = run_id(cycle.id, agent_id, project, attempt, 1)
            if tried(identity) is not None:
                continue
            agent = agents.get(agent_id)
            if agent is None or agent.runtime is None:
                waiting[identity] = f"agent {agent_id} has no runtime to run it with (section 4)"
                continue
            scheduled.append(
                scheduled_run(
                    identity,
                    agent,
                    project,
                    cycle=cycle.id,
                    attempt=attempt,
                    edition=first.edition,
                    plan=plan,
                )
            )
    return Planned(scheduled=scheduled, waiting=waiting)


def as_it_ran(
    run_id: str,
    original: RunScheduled | None,
    record: RunRecorded | None,
    agents: Mapping[str, AgentRegistered],
    plan: Plan,
) -> RunScheduled | str:
    """The run scheduled again as it ran (pinned commit, agent, budget tier): the original's
    schedule when Argusic ran it, else its record's (an ingested run) with its agent's
    registered runtime; why not, when it cannot be."""
    if original is not None:
        return msgspec.structs.replace(original, scheduled_at=plan.now, not_before=None)
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
        budget_seconds=budget_seconds(tier, plan.budgets),
        grace_seconds=plan.grace_seconds,
        scheduled_at=plan.now,
    )


AsRan = Callable[[str], RunScheduled | str]
"""A run id to the run scheduled again as it ran (`as_it_ran`), or why it cannot be."""


def plan_reruns(requested: Iterable[str], as_ran: AsRan, *, known: Collection[str]) -> Planned:
    """Sections 11, 15, 17, 19 and 20: each run asked for again, once, as `<id>~r<N>` replacing
    it, as it ran."""
    scheduled, waiting = [], {}
    for run_id in requested:
        again = rerun_id(run_id)
        if again in known:
            continue
        base = as_ran(run_id)
        if isinstance(base, str):
            waiting[run_id] = base
            continue
        scheduled.append(msgspec.structs.replace(base, run_id=again, replaces=run_id))
    return Planned(scheduled=scheduled, waiting=waiting)


def plan_reproductions(
    requests: Iterable[ReproductionRequested],
    as_ran: AsRan,
    recorded: Mapping[str, RunRecorded],
    *,
    known: Collection[str],
) -> Planned:
    """Section 18: each run of a reproduction request, once, as the original ran, with its
    image (by digest), its standard instructions (by SHA-256) and its budget pinned."""
    scheduled, waiting = [], {}
    for request in requests:
        record, base = recorded.get(request.run_id), as_ran(request.run_id)
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
    return Planned(scheduled=scheduled, waiting=waiting)
