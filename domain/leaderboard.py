"""From many runs to one figure per agent (methodology sections 9, 10 and 13)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Literal, NamedTuple

from domain.spread import is_unstable, middle

RUNS_PER_SET = 3
"""Methodology section 7, point 4: three independent runs, the middle one counts."""

Exclusion = Literal["unstable", "under_review", "incomplete"]


class ScoredRun(NamedTuple):
    """A valid run of the cycle as the leaderboard needs it, in ledger order."""

    agent: str
    project: str
    score: Fraction
    passed: bool
    stronger: bool = False
    """A stronger agent's attempt at a verdict chain (section 11)."""
    run_id: str = ""


class Excluded(NamedTuple):
    project: str
    reason: Exclusion


class Standing(NamedTuple):
    """One agent's row: its score (None when nothing counted) and what was left out."""

    agent: str
    score: Fraction | None
    pass_rate: Fraction
    attempts: int
    projects_counted: int
    excluded: list[Excluded]
    middles: dict[str, Fraction]
    """The middle score of each project counted, by project (what the score is the middle of)."""


def project_middles(
    runs: Iterable[ScoredRun], under_review: set[str]
) -> tuple[dict[str, Fraction], list[Excluded]]:
    """Methodology sections 9 and 10: the middle score of each project whose set is complete,
    leaving out, each named ("visible y no silenciosa"), projects under review, sets with fewer
    than three valid runs, and unstable sets."""
    sets: dict[str, list[Fraction]] = defaultdict(list)
    for run in runs:
        sets[run.project].append(run.score)
    counted, excluded = {}, []
    for project, scores in sorted(sets.items()):
        if project in under_review:
            excluded.append(Excluded(project, "under_review"))
        elif len(scores) < RUNS_PER_SET:
            excluded.append(Excluded(project, "incomplete"))
        elif is_unstable(scores):
            excluded.append(Excluded(project, "unstable"))
        else:
            counted[project] = middle(scores)
    return counted, excluded


def agent_score(middles: Iterable[Fraction]) -> Fraction | None:
    """Methodology section 9: the middle of the agent's per-project middles; None when every
    result was left out."""
    values = list(middles)
    return Fraction(statistics.median(values)) if values else None


def pass_rate(runs: Sequence[ScoredRun]) -> Fraction:
    """Methodology sections 9 and 13: passes over every valid attempt of the cycle, failures
    and timeouts included."""
    return Fraction(sum(r.passed for r in runs), len(runs)) if runs else Fraction(0)


def is_ranked_agent(runs: Sequence[ScoredRun]) -> bool:
    """Methodology sections 9 and 11: the leaderboard ranks the cycle's agents; an agent used
    only as the stronger agent of verdict chains is not one of its rows."""
    return any(not run.stronger for run in runs)


def leaderboard(runs: Sequence[ScoredRun], under_review: set[str]) -> list[Standing]:
    """Methodology section 9: agents by score, highest first; an agent whose results were all
    left out is listed last, without a score, never dropped."""
    by_agent: dict[str, list[ScoredRun]] = defaultdict(list)
    for run in runs:
        by_agent[run.agent].append(run)
    standings = []
    for agent, agent_runs in by_agent.items():
        if not is_ranked_agent(agent_runs):
            continue
        middles, excluded = project_middles(agent_runs, under_review)
        standings.append(
            Standing(
                agent=agent,
                score=agent_score(middles.values()),
                pass_rate=pass_rate(agent_runs),
                attempts=len(agent_runs),
                projects_counted=len(middles),
                excluded=excluded,
                middles=middles,
            )
        )
    return sorted(standings, key=lambda s: (s.score is None, -(s.score or 0), s.agent))
