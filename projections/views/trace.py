"""What a run's figures rest on: its outcome, score and set, and the ledger positions of every
event behind them (the edition, the set's runs, the last review, the evidence, the rerun)."""

from __future__ import annotations

import msgspec

from domain.events import Evidence
from domain.scoring import Outcome
from projections.methodology import Methodology, set_key
from projections.views.evidence import EvidenceView, evidence_views
from projections.views.project import SetRow, set_row, set_scores


class TraceBasis(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    outcome: Outcome | None
    score: float | None
    set: SetRow | None
    evidence: Evidence
    copies: dict[str, EvidenceView]
    positions: list[int]


def trace_basis(state: Methodology, as_of: int, run_id: str) -> TraceBasis:
    judged = state.judge(state.find_run(run_id, as_of))
    run = judged.event
    key = set_key(run)
    members = state.set_members(key)
    scores = set_scores([state.judge(member) for member in members])
    positions = {member.position for member in members} | {state.editions[run.edition].position}
    positions.update(r.position for r in state.reviews.get(run.project.id, {}).get(run.cycle, []))
    for copy in state.evidence.get(run_id, {}).values():
        positions.update(copy.positions)
    for noted in (state.reruns.get(run_id), state.voided.get(run_id)):
        if noted is not None:
            positions.add(noted.position)
    return TraceBasis(
        run_id=run_id,
        outcome=judged.outcome,
        score=None if judged.lines is None else float(judged.lines.total),
        set=set_row(key, scores) if scores else None,
        evidence=run.evidence,
        copies=evidence_views(state, run_id),
        positions=sorted(positions),
    )
