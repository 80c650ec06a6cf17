"""The leaderboard of a cycle (methodology sections 9 and 10), with the runs behind each figure."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

import msgspec

from domain.leaderboard import Exclusion, ScoredRun, Standing, leaderboard
from domain.scoring import passed
from projections.methodology import Methodology


class ExcludedRow(msgspec.Struct, frozen=True):
    project: str
    reason: Exclusion


class ProjectCell(msgspec.Struct, frozen=True, kw_only=True):
    """One project an agent attempted in the cycle: its middle score when counted, why not
    otherwise, and its valid runs (every one of them counts in the pass rate)."""

    project: str
    middle: float | None
    status: Literal["counted", "unstable", "under_review", "incomplete"]
    runs: list[str]


class LeaderboardRow(msgspec.Struct, frozen=True, kw_only=True):
    agent: str
    score: float | None
    pass_rate: float
    attempts: int
    projects_counted: int
    excluded: list[ExcludedRow]
    projects: list[ProjectCell] = msgspec.field(default_factory=list)


class LeaderboardView(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    as_of: int
    rows: list[LeaderboardRow]


def _cells(standing: Standing, runs: dict[str, list[str]]) -> list[ProjectCell]:
    excluded = {e.project: e.reason for e in standing.excluded}
    return [
        ProjectCell(
            project=project,
            middle=None if (m := standing.middles.get(project)) is None else float(m),
            status="counted" if m is not None else excluded.get(project, "incomplete"),
            runs=run_ids,
        )
        for project, run_ids in sorted(runs.items())
    ]


def leaderboard_view(state: Methodology, as_of: int, cycle: str) -> LeaderboardView:
    """Sections 6a, 9 and 10: the cycle's valid runs of source types in use, by agent."""
    in_use = state.sources_in_use()
    scored = [
        ScoredRun(
            j.event.agent.id,
            j.event.project.id,
            j.lines.total,
            passed(j.outcome),
            j.event.attempt == "stronger",
            j.event.run_id,
        )
        for j in state.judged()
        if j.event.cycle == cycle
        and j.outcome is not None
        and j.lines is not None
        and j.event.project.source_type in in_use
    ]
    runs: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for run in scored:
        runs[run.agent][run.project].append(run.run_id)
    rows = [
        LeaderboardRow(
            agent=s.agent,
            score=None if s.score is None else float(s.score),
            pass_rate=float(s.pass_rate),
            attempts=s.attempts,
            projects_counted=s.projects_counted,
            excluded=[ExcludedRow(e.project, e.reason) for e in s.excluded],
            projects=_cells(s, runs[s.agent]),
        )
        for s in leaderboard(scored, state.under_review(cycle))
    ]
    return LeaderboardView(cycle=cycle, as_of=as_of, rows=rows)
