"""The leaderboard of a cycle (methodology sections 9 and 10), with the runs behind each figure."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

import msgspec

from domain.leaderboard import Exclusion, Standing
from domain.state.methodology import Methodology
from projections.views.approved import Approved


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
    label: str | None = None
    """The agent's neutral Argusic identity (sections 5 and 18), where it has a record."""
    projects: list[ProjectCell] = msgspec.field(default_factory=list)
    sponsor: str | None = None
    """Section 13: the sponsor of the agent's compute, beside its results."""


class LeaderboardView(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    as_of: int
    rows: list[LeaderboardRow]
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""


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
    """Sections 6a, 9 and 10: the cycle's agents, and behind each figure its runs."""
    runs: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    scored = state.scored_runs(cycle)
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
            label=state.agents[s.agent].label if s.agent in state.agents else None,
            projects=_cells(s, runs[s.agent]),
            sponsor=state.sponsor(s.agent),
        )
        for s in state.standings(cycle, scored)
    ]
    return LeaderboardView(cycle=cycle, as_of=as_of, rows=rows)
