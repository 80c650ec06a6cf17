"""Agents and cycles (methodology sections 4 to 6 and 14): each agent a fixed, version-pinned
configuration under a neutral identity; each cycle a roster of agents and a pool of projects at
pinned commits, public and secret; a run belongs to its cycle's roster and pool."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import msgspec

from domain.errors import Rejected
from domain.events import (
    Agent,
    AgentRegistered,
    AgentRuntime,
    CycleOpened,
    InputRecord,
    Project,
    Text,
)

Cycle = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]


class AgentRecord(InputRecord, frozen=True, tag="agent"):
    """Input: an agent's fixed configuration and its neutral identity."""

    id: Text
    label: Text
    model: Text
    model_version: Text
    harness: Text
    harness_version: Text
    key: Literal["per_run", "shared_vendor"]
    sponsor: str | None = None
    runtime: AgentRuntime | None = None


class CycleRecord(InputRecord, frozen=True, tag="cycle"):
    """Input: a test cycle's roster and project pool."""

    id: Cycle
    opens: date
    agents: list[Text]
    projects: list[Project]
    stronger_agent: Text | None = None


def register_agent(record: AgentRecord, recorded: AgentRegistered | None) -> list[AgentRegistered]:
    """Methodology sections 4 and 5: an agent is a fixed configuration; the same agent again
    changes nothing, and the same id with any other field different is refused."""
    fields = msgspec.structs.asdict(record)
    agent = AgentRegistered(**fields)
    if recorded is None:
        return [agent]
    if recorded != agent:
        changed = [k for k in fields if getattr(recorded, k) != fields[k]]
        raise Rejected(
            "sections 4 and 5",
            f"agent {record.id} is a fixed configuration: {', '.join(changed)} cannot change",
        )
    return []


def open_cycle(
    record: CycleRecord, recorded: CycleOpened | None, agents: set[str]
) -> list[CycleOpened]:
    """Methodology sections 5 and 6: a cycle names registered agents and projects pinned at a
    commit, each once; the same cycle again changes nothing, a different one is refused."""
    for agent in [*record.agents, *([record.stronger_agent] if record.stronger_agent else [])]:
        if agent not in agents:
            raise Rejected("section 5", f"cycle {record.id}: agent {agent} has no agent record")
    ids = [p.id for p in record.projects]
    for project in record.projects:
        if not project.commit:
            raise Rejected("section 6", f"cycle {record.id}: project {project.id} has no commit")
        if ids.count(project.id) > 1:
            raise Rejected("section 6", f"cycle {record.id}: project {project.id} is listed twice")
    cycle = CycleOpened(**msgspec.structs.asdict(record))
    if recorded is None:
        return [cycle]
    if recorded != cycle:
        raise Rejected("section 14", f"cycle {record.id} is already recorded differently")
    return []


def profile(agent: AgentRegistered) -> Agent:
    """What a run records of its agent: the configuration, under its neutral id."""
    return Agent(
        id=agent.id,
        model=agent.model,
        model_version=agent.model_version,
        harness=agent.harness,
        harness_version=agent.harness_version,
    )


def in_cycle(
    *,
    run_id: str,
    agent: Agent,
    project: Project,
    stronger: bool,
    cycle: CycleOpened,
    registered: AgentRegistered | None,
) -> None:
    """Methodology sections 4, 6 and 14: a run of a cycle is by an agent of its roster (or its
    stronger agent, for a stronger attempt) with the configuration of its agent record, on a
    project of its pool at the same commit."""
    roster = [*cycle.agents, *([cycle.stronger_agent] if stronger and cycle.stronger_agent else [])]
    if agent.id not in roster or registered is None:
        raise Rejected("section 5", f"run {run_id}: {agent.id} is not in cycle {cycle.id}'s roster")
    if agent != profile(registered):
        raise Rejected(
            "section 4", f"run {run_id}: {agent.id}'s configuration differs from its agent record"
        )
    pooled = next((p for p in cycle.projects if p.id == project.id), None)
    if pooled is None:
        raise Rejected("section 6", f"run {run_id}: {project.id} is not in cycle {cycle.id}'s pool")
    if (pooled.commit, pooled.pool) != (project.commit, project.pool):
        raise Rejected(
            "section 6",
            f"run {run_id}: {project.id} ran at {project.commit} ({project.pool}), but cycle "
            f"{cycle.id} pins {pooled.commit} ({pooled.pool})",
        )
