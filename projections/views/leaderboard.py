"""The leaderboard of a cycle (methodology sections 9 and 10)."""

from __future__ import annotations

import msgspec

from domain.leaderboard import Exclusion
from domain.state.methodology import Methodology
from projections.views.approved import Approved


class ExcludedRow(msgspec.Struct, frozen=True):
    project: str
    reason: Exclusion


class LeaderboardRow(msgspec.Struct, frozen=True, kw_only=True):
    agent: str
    score: float | None
    pass_rate: float
    attempts: int
    projects_counted: int
    excluded: list[ExcludedRow]
    label: str | None = None
    """The agent's neutral Argusic identity (sections 5 and 18), where it has a record."""


class LeaderboardView(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    as_of: int
    rows: list[LeaderboardRow]
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""


def leaderboard_view(state: Methodology, as_of: int, cycle: str) -> LeaderboardView:
    rows = [
        LeaderboardRow(
            agent=s.agent,
            score=None if s.score is None else float(s.score),
            pass_rate=float(s.pass_rate),
            attempts=s.attempts,
            projects_counted=s.projects_counted,
            excluded=[ExcludedRow(e.project, e.reason) for e in s.excluded],
            label=state.agents[s.agent].label if s.agent in state.agents else None,
        )
        for s in state.standings(cycle)
    ]
    return LeaderboardView(cycle=cycle, as_of=as_of, rows=rows)
