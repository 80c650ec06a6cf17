"""A project's page: verdict, attempts and sets (methodology sections 10, 11 and 15)."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import msgspec

from domain.errors import NotFound
from domain.events import AttemptKind
from domain.evidence.quoting import house_punctuation
from domain.scoring import Outcome
from domain.spread import is_unstable, middle, spread
from domain.verdict import Attempt, Verdict, verdict
from projections.methodology import Judged, Methodology, Review, SetKey, set_key


class AttemptRow(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    agent: str
    attempt: AttemptKind
    cycle: str
    edition: str
    outcome: Outcome | None
    score: float | None
    valid: bool
    invalid_reason: str | None


class SetRow(msgspec.Struct, frozen=True, kw_only=True):
    agent: str
    cycle: str
    scores: list[float]
    median: float
    spread: float | None
    unstable: bool


class ProjectView(msgspec.Struct, frozen=True, kw_only=True):
    project: str
    as_of: int
    description_shown: str | None
    """The repository's description as the page shows it (section 17, quoted text)."""
    verdict: Verdict
    under_review: bool
    attempts: list[AttemptRow]
    sets: list[SetRow]
    reviews: list[Review] = msgspec.field(default_factory=list)
    """Section 15: every review that cleared the project, in ledger order."""


def set_scores(members: list[Judged]) -> list[Fraction]:
    """A set's scores: those of its valid runs, in ledger order."""
    return [j.lines.total for j in members if j.outcome is not None and j.lines is not None]


def set_row(key: SetKey, scores: list[Fraction]) -> SetRow:
    agent, _, cycle = key
    width = spread(scores)
    return SetRow(
        agent=agent,
        cycle=cycle,
        scores=[float(s) for s in scores],
        median=float(middle(scores)),
        spread=None if width == math.inf else float(width),
        unstable=is_unstable(scores),
    )


def _attempt_row(judged: Judged) -> AttemptRow:
    event = judged.event
    return AttemptRow(
        run_id=event.run_id,
        agent=event.agent.id,
        attempt=event.attempt,
        cycle=event.cycle,
        edition=event.edition,
        outcome=judged.outcome,
        score=None if judged.lines is None else float(judged.lines.total),
        valid=judged.outcome is not None,
        invalid_reason=judged.invalid_reason,
    )


def project_verdict(runs: list[Judged]) -> Verdict:
    """Section 11 over a project's runs in ledger order (the valid ones are its attempts)."""
    return verdict(
        [
            Attempt(j.event.attempt, j.event.edition, j.outcome)
            for j in runs
            if j.outcome is not None
        ]
    )


def project_view(state: Methodology, as_of: int, project_id: str) -> ProjectView:
    runs = [j for j in state.judged() if j.event.project.id == project_id]
    if not runs:
        raise NotFound(f"no run of project {project_id!r} as of position {as_of}")
    sets: dict[SetKey, list[Judged]] = defaultdict(list)
    for judged in runs:
        sets[set_key(judged.event)].append(judged)
    description = max(runs, key=lambda j: j.run.position).event.project.description
    return ProjectView(
        project=project_id,
        as_of=as_of,
        description_shown=description and house_punctuation(description),
        verdict=project_verdict(runs),
        under_review=project_id in state.projects_under_review(),
        attempts=[_attempt_row(j) for j in runs],
        sets=[
            set_row(key, scores)
            for key, members in sorted(sets.items())
            if (scores := set_scores(members))
        ],
        reviews=state.reviews.get(project_id, []),
    )
