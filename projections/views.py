"""The read models of the methodology, each a pure function of the folded state; field names
are the contract of ARCHITECTURE.md ("JSON outputs")."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date
from fractions import Fraction

import msgspec

from domain.editions import effective_since
from domain.environment_qa import is_under_review
from domain.events import AttemptKind, RunRecorded, SourceType
from domain.evidence.quoting import house_punctuation
from domain.leaderboard import Exclusion, ScoredRun, leaderboard
from domain.runs import invalid_reason, run_outcome, run_score, time_budget_minutes
from domain.scoring import Outcome, passed
from domain.source_types import Status, source_table
from domain.spread import is_unstable, middle, spread
from domain.verdict import Attempt, Verdict, verdict
from projections.methodology import Methodology, Run


def number(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


# --- leaderboard (sections 9 and 10) ---


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


def rerun(state: Methodology, run: Run) -> str | None:
    """Why the run is repeated (section 17, its evidence withheld), if it is."""
    requested = state.reruns.get(run.event.run_id)
    return None if requested is None else requested.reason


def projects_under_review(state: Methodology) -> set[str]:
    """Section 15, for every project at once: valid attempts since its last review."""
    outcomes: dict[str, list[Outcome]] = defaultdict(list)
    for run in state.runs.values():
        result = run_outcome(run.event, rerun(state, run))
        project = run.event.project.id
        if result is not None and run.position > state.last_review.get(project, 0):
            outcomes[project].append(result)
    return {project for project, results in outcomes.items() if is_under_review(results)}


def leaderboard_view(state: Methodology, as_of: int, cycle: str) -> LeaderboardView:
    scored = []
    for run in state.runs.values():
        event, again = run.event, rerun(state, run)
        result, lines = run_outcome(event, again), run_score(event, again)
        if event.cycle == cycle and result is not None and lines is not None:
            scored.append(ScoredRun(event.agent.id, event.project.id, lines.total, passed(result)))
    rows = [
        LeaderboardRow(
            agent=s.agent,
            score=number(s.score),
            pass_rate=float(s.pass_rate),
            attempts=s.attempts,
            projects_counted=s.projects_counted,
            excluded=[ExcludedRow(e.project, e.reason) for e in s.excluded],
        )
        for s in leaderboard(scored, projects_under_review(state))
    ]
    return LeaderboardView(cycle=cycle, as_of=as_of, rows=rows)


# --- project page (sections 10, 11 and 15) ---


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


def set_row(agent: str, cycle: str, scores: list[Fraction]) -> SetRow:
    width = spread(scores)
    return SetRow(
        agent=agent,
        cycle=cycle,
        scores=[float(s) for s in scores],
        median=float(middle(scores)),
        spread=None if width == math.inf else float(width),
        unstable=is_unstable(scores),
    )


def project_view(state: Methodology, as_of: int, project_id: str) -> ProjectView:
    runs = [r for r in state.runs.values() if r.event.project.id == project_id]
    if not runs:
        raise LookupError(f"no run of project {project_id!r} as of position {as_of}")
    attempts, valid, sets = [], [], defaultdict(list)
    for run in runs:
        event, again = run.event, rerun(state, run)
        result, lines = run_outcome(event, again), run_score(event, again)
        attempts.append(
            AttemptRow(
                run_id=event.run_id,
                agent=event.agent.id,
                attempt=event.attempt,
                cycle=event.cycle,
                edition=event.edition,
                outcome=result,
                score=None if lines is None else float(lines.total),
                valid=result is not None,
                invalid_reason=invalid_reason(event, again),
            )
        )
        if result is not None and lines is not None:
            valid.append(Attempt(event.attempt, event.edition, result))
            sets[event.agent.id, event.cycle].append(lines.total)
    description = max(runs, key=lambda r: r.position).event.project.description
    return ProjectView(
        project=project_id,
        as_of=as_of,
        description_shown=description and house_punctuation(description),
        verdict=verdict(valid),
        under_review=project_id in projects_under_review(state),
        attempts=attempts,
        sets=[set_row(agent, cycle, scores) for (agent, cycle), scores in sorted(sets.items())],
    )


# --- run page (sections 7, 8 and 17) ---


class ScoreLinesRow(msgspec.Struct, frozen=True, kw_only=True):
    install: int
    start: int
    recovery: float
    depth: int
    total: float


class EvidenceView(msgspec.Struct, frozen=True, kw_only=True):
    """One of a run's files as served (section 17): fingerprints and the transforms applied."""

    raw_sha256: str
    served_sha256: str | None
    transforms: list[str]
    counts: dict[str, int]
    key_material_masked: bool
    withheld: str | None


class RunView(msgspec.Struct, frozen=True, kw_only=True):
    """A run as recorded, and what the rules make of it."""

    run_id: str
    as_of: int
    position: int
    run: RunRecorded
    time_budget_minutes: int
    valid: bool
    invalid_reason: str | None
    outcome: Outcome | None
    score: float | None
    score_lines: ScoreLinesRow | None
    evidence: dict[str, EvidenceView]
    rerun_requested: str | None
    final_state_shown: str | None


def evidence_views(state: Methodology, run_id: str) -> dict[str, EvidenceView]:
    return {
        kind: EvidenceView(
            raw_sha256=copy.raw_sha256,
            served_sha256=copy.served_sha256,
            transforms=copy.transforms,
            counts=copy.counts,
            key_material_masked=copy.counts.get("private_key_body", 0) > 0,
            withheld=copy.withheld,
        )
        for kind, copy in state.evidence.get(run_id, {}).items()
    }


def run_view(state: Methodology, as_of: int, run_id: str) -> RunView:
    found = find_run(state, run_id, as_of)
    event, again = found.event, rerun(state, found)
    lines = run_score(event, again)
    return RunView(
        run_id=run_id,
        as_of=as_of,
        position=found.position,
        run=event,
        time_budget_minutes=time_budget_minutes(event),
        valid=lines is not None,
        invalid_reason=invalid_reason(event, again),
        outcome=run_outcome(event, again),
        score=None if lines is None else float(lines.total),
        score_lines=None
        if lines is None
        else ScoreLinesRow(
            install=lines.install,
            start=lines.start,
            recovery=float(lines.recovery),
            depth=lines.depth,
            total=float(lines.total),
        ),
        evidence=evidence_views(state, run_id),
        rerun_requested=again,
        final_state_shown=None
        if event.report is None or event.report.final_state is None
        else house_punctuation(event.report.final_state),
    )


def find_run(state: Methodology, run_id: str, as_of: int) -> Run:
    run = state.runs.get(run_id)
    if run is None:
        raise LookupError(f"no run {run_id!r} as of position {as_of}")
    return run


# --- editions (section 20) and sources (section 6a) ---


class EditionRow(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    drafted: date
    effective_since: date | None
    differs_from_drafted: bool
    summary: str


class EditionsView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    editions: list[EditionRow]


def editions_view(state: Methodology, as_of: int) -> EditionsView:
    started = [(r.event.edition, r.event.started_at.date()) for r in state.runs.values()]
    rows = []
    for edition in state.ordered_editions():
        since = effective_since(edition.version, started)
        rows.append(
            EditionRow(
                version=edition.version,
                drafted=edition.drafted,
                effective_since=since,
                differs_from_drafted=since is not None and since != edition.drafted,
                summary=edition.summary,
            )
        )
    return EditionsView(as_of=as_of, editions=rows)


class SourceRowView(msgspec.Struct, frozen=True, kw_only=True):
    source_type: SourceType
    status: Status
    projects_tested: int


class SourcesView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    sources: list[SourceRowView]


def sources_view(state: Methodology, as_of: int) -> SourcesView:
    tested = [
        (r.event.project.source_type, r.event.project.pool, r.event.project.id)
        for r in state.runs.values()
        if invalid_reason(r.event, rerun(state, r)) is None
    ]
    rows = [
        SourceRowView(source_type=s, status=st, projects_tested=n)
        for s, st, n in source_table(tested)
    ]
    return SourcesView(as_of=as_of, sources=rows)
