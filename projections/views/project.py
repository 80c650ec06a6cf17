"""A project's page: verdict, attempts and sets (methodology sections 10, 11 and 15)."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import msgspec

from domain.environment_qa import Finding
from domain.errors import NotFound
from domain.events import AttemptKind
from domain.evidence.quoting import house_punctuation, quoted_final_state
from domain.scoring import Outcome
from domain.spread import is_unstable, middle, spread
from domain.state.methodology import Methodology, SetKey, set_key
from domain.state.records import Judged
from domain.verdict import Attempt, Verdict, verdict
from projections.views.approved import Approved
from projections.views.evidence import served_url


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
    log: str | None = None
    """Where the run's log is served: where the attempt stopped (section 11); None when it has
    none served (no log, or withheld)."""
    final_state_shown: str | None = None
    """Section 16: the agent's own final-state sentence, quoted as the run page quotes it."""
    sponsor: str | None = None
    """Section 13: the sponsor of the agent's compute, beside its results."""


class SetRow(msgspec.Struct, frozen=True, kw_only=True):
    agent: str
    cycle: str
    scores: list[float]
    median: float
    spread: float | None
    unstable: bool


class ReviewRow(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    position: int
    finding: Finding
    reviewer: str
    note: str


class ProjectView(msgspec.Struct, frozen=True, kw_only=True):
    project: str
    as_of: int
    description_shown: str | None
    """The repository's description as the page shows it (section 17, quoted text)."""
    verdict: Verdict | None
    """None for a project of a source type not started (section 6a: no verdict shown)."""
    under_review: bool
    attempts: list[AttemptRow]
    sets: list[SetRow]
    under_review_in: list[str] = msgspec.field(default_factory=list)
    """The cycles in which it is under review (section 15)."""
    reviews: list[ReviewRow] = msgspec.field(default_factory=list)
    verified_by: AttemptRow | None = None
    """Section 11: the attempt whose pass gave the verdict ("el registro muestra qué agent lo
    verificó"): the first full pass, else the first pass with mocks."""
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""


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


def _attempt_row(state: Methodology, judged: Judged) -> AttemptRow:
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
        log=served_url(state, event.run_id, "log"),
        final_state_shown=quoted_final_state(event),
        sponsor=state.sponsor(event.agent.id),
    )


def project_verdict(state: Methodology, runs: list[Judged]) -> Verdict | None:
    """Section 11 over a project's runs in ledger order (its valid ones are its attempts), the
    chain of its latest attempt's cycle with a stronger agent unless that cycle's record names
    none; none for a source type not started (section 6a)."""
    latest = max(runs, key=lambda j: j.run.position).event.project
    if latest.source_type not in state.sources_in_use():
        return None
    attempts = [
        Attempt(j.event.attempt, j.event.edition, j.outcome) for j in runs if j.outcome is not None
    ]
    last = next((j.event.cycle for j in reversed(runs) if j.outcome is not None), None)
    record = None if last is None else state.cycles.get(last)
    return verdict(attempts, stronger=record is None or record.stronger_agent is not None)


def verifying(attempts: list[AttemptRow]) -> AttemptRow | None:
    """Section 11: the attempt that verified the project, the best result first."""
    for outcome in ("pass_full", "pass_mock"):
        found = next((a for a in attempts if a.outcome == outcome), None)
        if found is not None:
            return found
    return None


def project_view(state: Methodology, as_of: int, project_id: str) -> ProjectView:
    runs = [state.judge(r) for r in state.runs.values() if r.event.project.id == project_id]
    if not runs:
        raise NotFound(f"no run of project {project_id!r} as of position {as_of}")
    sets: dict[SetKey, list[Judged]] = defaultdict(list)
    for judged in runs:
        sets[set_key(judged.event)].append(judged)
    latest = max(runs, key=lambda j: j.run.position).event.project
    cycles = sorted({j.event.cycle for j in runs})
    under_review_in = [c for c in cycles if project_id in state.under_review(c)]
    reviews = state.reviews.get(project_id, {})
    attempts = [_attempt_row(state, j) for j in runs]
    verdict = project_verdict(state, runs)
    return ProjectView(
        project=project_id,
        as_of=as_of,
        description_shown=latest.description and house_punctuation(latest.description),
        verdict=verdict,
        under_review=bool(under_review_in),
        under_review_in=under_review_in,
        reviews=[
            ReviewRow(
                cycle=c, position=r.position, finding=r.finding, reviewer=r.reviewer, note=r.note
            )
            for c in sorted(reviews)
            for r in reviews[c]
        ],
        attempts=attempts,
        verified_by=verifying(attempts) if verdict in ("works", "works_with_mocks") else None,
        sets=[
            set_row(key, scores)
            for key, members in sorted(sets.items())
            if (scores := set_scores(members))
        ],
    )
