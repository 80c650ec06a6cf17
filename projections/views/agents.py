"""A cycle's roster and pool (methodology sections 5, 6, 13 and 18): each agent under its
neutral identity with the configuration behind it, the sponsor where there is one, and the
projects at their pinned commits (the secret pool once the cycle is closed)."""

from __future__ import annotations

import msgspec

from domain.errors import NotFound
from domain.events import AgentRegistered, Project
from domain.state.methodology import Methodology
from projections.views.approved import Approved


class AgentsView(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    as_of: int
    agents: list[AgentRegistered]
    stronger_agent: AgentRegistered | None
    projects: list[Project]
    closed: bool
    approved: Approved | None = None


def agents_view(state: Methodology, as_of: int, cycle: str) -> AgentsView:
    record = state.cycles.get(cycle)
    if record is None:
        raise NotFound(f"no cycle {cycle!r} as of position {as_of}")
    stronger = record.stronger_agent
    return AgentsView(
        cycle=cycle,
        as_of=as_of,
        agents=[state.agents[a] for a in record.agents],
        stronger_agent=state.agents[stronger] if stronger else None,
        projects=record.projects,
        closed=cycle in state.closed,
    )
