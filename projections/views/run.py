"""A run's page: outcome, score lines, time budget and evidence (methodology sections 7, 8
and 17)."""

from __future__ import annotations

import msgspec

from domain.events import RunRecorded
from domain.evidence.quoting import house_punctuation
from domain.runs import budget
from domain.scoring import Outcome, ScoreLines
from domain.source_types import verified_claim
from projections.methodology import Methodology
from projections.views.evidence import EvidenceView, evidence_views


class ScoreLinesRow(msgspec.Struct, frozen=True, kw_only=True):
    install: int
    start: int
    recovery: float
    depth: int
    total: float


class RunView(msgspec.Struct, frozen=True, kw_only=True):
    """A run as recorded, and what the rules make of it."""

    run_id: str
    as_of: int
    position: int
    run: RunRecorded
    time_budget_minutes: float
    valid: bool
    invalid_reason: str | None
    outcome: Outcome | None
    score: float | None
    score_lines: ScoreLinesRow | None
    evidence: dict[str, EvidenceView]
    rerun_requested: str | None
    final_state_shown: str | None
    verified_claim: str
    """Section 6a: what a pass of this run verifies, in the seed's words."""


def score_lines_row(lines: ScoreLines) -> ScoreLinesRow:
    return ScoreLinesRow(
        install=lines.install,
        start=lines.start,
        recovery=float(lines.recovery),
        depth=lines.depth,
        total=float(lines.total),
    )


def run_view(state: Methodology, as_of: int, run_id: str) -> RunView:
    judged = state.judge(state.find_run(run_id, as_of))
    event, lines = judged.event, judged.lines
    final_state = event.report.final_state if event.report else None
    return RunView(
        run_id=run_id,
        as_of=as_of,
        position=judged.run.position,
        run=event,
        time_budget_minutes=budget(event),
        valid=lines is not None,
        invalid_reason=judged.invalid_reason,
        outcome=judged.outcome,
        score=None if lines is None else float(lines.total),
        score_lines=None if lines is None else score_lines_row(lines),
        evidence=evidence_views(state, run_id),
        rerun_requested=state.rerun_reason(run_id),
        final_state_shown=None if final_state is None else house_punctuation(final_state),
        verified_claim=verified_claim(event.project.source_type),
    )
