"""The leaderboard of a cycle (methodology sections 9 and 10)."""

from __future__ import annotations

import msgspec

from domain.leaderboard import Exclusion, ScoredRun, leaderboard
from domain.scoring import passed
from projections.methodology import Methodology


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


class LeaderboardView(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    as_of: int
    rows: list[LeaderboardRow]


def leaderboard_view(state: Methodology, as_of: int, cycle: str) -> LeaderboardView:
    scored = [
        ScoredRun(j.event.agent.id, j.event.project.id, j.lines.total, passed(j.outcome))
        for j in state.judged()
        if j.event.cycle == cycle and j.outcome is not None and j.lines is not None
    ]
    rows = [
        LeaderboardRow(
            agent=s.agent,
            score=None if s.score is None else float(s.score),
            pass_rate=float(s.pass_rate),
            attempts=s.attempts,
            projects_counted=s.projects_counted,
            excluded=[ExcludedRow(e.project, e.reason) for e in s.excluded],
        )
        for s in leaderboard(scored, state.projects_under_review())
    ]
    return LeaderboardView(cycle=cycle, as_of=as_of, rows=rows)
