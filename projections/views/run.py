"""A run's page: outcome, score lines, time budget and evidence (methodology sections 7, 8
and 17)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.events import RunRecorded, SandboxLimits
from domain.events.evidence import Timeline
from domain.evidence.quoting import quoted_final_state
from domain.runner.naming import replaced_run, rerun_id
from domain.runs import budget
from domain.scoring import Outcome, ScoreLines
from domain.source_types import verified_claim
from domain.state.methodology import Methodology
from domain.verification import verification_note
from projections.views.approved import Approved
from projections.views.evidence import EvidenceView, evidence_views
from projections.views.renders import RenderRow, renders_view


class ScoreLinesRow(msgspec.Struct, frozen=True, kw_only=True):
    install: int
    start: int
    recovery: float
    depth: int
    total: float


class DisputeRow(msgspec.Struct, frozen=True, kw_only=True):
    """Section 19: a dispute of the run's result and how it was resolved."""

    dispute: str
    claimant: str
    claim: str
    opened_at: int
    outcome: Literal["upheld", "rerun"] | None
    note: str | None
    resolved_at: int | None


class RunView(msgspec.Struct, frozen=True, kw_only=True):
    """A run as recorded, and what the rules make of it."""

    run_id: str
    as_of: int
    position: int
    run: RunRecorded
    time_budget_minutes: float
    valid: bool
    invalid_reason: str | None
    invalidated_at: int | None
    """The position of the signed action that set the run aside after it was recorded."""
    replaces: str | None
    """The run this one repeats (`<id>~r<N>` repeats the one before it)."""
    replaced_by: str | None
    """The recorded run that repeats this one."""
    outcome: Outcome | None
    score: float | None
    score_lines: ScoreLinesRow | None
    evidence: dict[str, EvidenceView]
    rerun_requested: str | None
    final_state_shown: str | None
    verified_claim: str
    """Section 6a: what a pass of this run verifies, in the seed's words."""
    disputes: list[DisputeRow] = msgspec.field(default_factory=list)
    image_digest: str | None = None
    """Section 18, the environment published: the machine image the run ran on, by digest."""
    engine_version: str | None = None
    network: str | None = None
    instructions_sha256: str | None = None
    """The standard instructions the agent had (published at `/instructions/<sha256>`)."""
    sponsor: str | None = None
    """Section 13: the sponsor of the agent's compute, beside its results."""
    limits: SandboxLimits | None = None
    """Section 7, point 1: the sandbox's CPU, memory and process limits and its network."""
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""
    verification_note: str | None = None
    """Section 16, from v1.4: why the report's `tier1_real` counts as `tier3_none`, if it does."""
    renders: list[RenderRow] = msgspec.field(default_factory=list)
    """Section 17: the run's renders, each made from its served recording."""
    timeline: Timeline | None = None
    """Section 17: the run's commands, failures, fixes, verification and end, as its served
    recording shows them (derived from it where the document is served)."""


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
    return RunView(
        run_id=run_id,
        as_of=as_of,
        position=judged.run.position,
        run=event,
        time_budget_minutes=budget(event),
        valid=lines is not None,
        invalid_reason=judged.invalid_reason,
        invalidated_at=state.set_aside_at(run_id),
        replaces=replaced_run(run_id),
        replaced_by=again if (again := rerun_id(run_id)) in state.runs else None,
        outcome=judged.outcome,
        score=None if lines is None else float(lines.total),
        score_lines=None if lines is None else score_lines_row(lines),
        evidence=evidence_views(state, run_id),
        rerun_requested=state.rerun_reason(run_id),
        final_state_shown=quoted_final_state(event),
        verified_claim=verified_claim(event.project.source_type),
        disputes=[
            DisputeRow(
                dispute=d.id,
                claimant=d.claimant,
                claim=d.claim,
                opened_at=d.opened_at,
                outcome=d.outcome,
                note=d.note,
                resolved_at=d.resolved_at,
            )
            for d in state.run_disputes(run_id)
        ],
        image_digest=event.image_digest,
        engine_version=event.engine_version,
        network=event.network,
        instructions_sha256=event.instructions_sha256,
        sponsor=state.sponsor(event.agent.id),
        limits=event.limits,
        verification_note=verification_note(event),
        renders=renders_view(state, as_of, run_id).renders,
    )
