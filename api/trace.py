"""`argusic trace RUN_ID`: every ledger event behind a run's outcome, score and its set's
middle, each with an inclusion proof an auditor checks offline against the signed checkpoint."""

from __future__ import annotations

import msgspec

from api.service import CheckpointView, Reads, View, checkpoint_view
from domain.events import Evidence
from domain.runs import run_outcome, total
from domain.scoring import Outcome
from ledger.ledger import Ledger
from ledger.merkle import leaf_hash
from projections.methodology import Methodology
from projections.views import EvidenceView, SetRow, evidence_views, find_run, rerun, set_row


class TracedEvent(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    type: str
    stream: str
    version: int
    hash: str
    canonical: str
    leaf_hash: str
    path: list[str]


class TraceView(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    outcome: Outcome | None
    score: float | None
    set: SetRow | None
    evidence: Evidence
    copies: dict[str, EvidenceView]
    checkpoint: CheckpointView
    events: list[TracedEvent]


class _Behind(msgspec.Struct, frozen=True):
    outcome: Outcome | None
    score: float | None
    set: SetRow | None
    evidence: Evidence
    copies: dict[str, EvidenceView]
    positions: list[int]


def _behind(run_id: str) -> View[_Behind]:
    def view(state: Methodology, as_of: int) -> _Behind:
        found = find_run(state, run_id, as_of)
        run, again = found.event, rerun(state, found)
        members = [
            r
            for r in state.runs.values()
            if (r.event.agent.id, r.event.project.id, r.event.cycle)
            == (run.agent.id, run.project.id, run.cycle)
        ]
        scores = [s for r in members if (s := total(r.event, rerun(state, r))) is not None]
        positions = {r.position for r in members} | {state.editions[run.edition].position}
        if review := state.last_review.get(run.project.id):
            positions.add(review)
        for copy in state.evidence.get(run_id, {}).values():
            positions.update(copy.positions)
        if run_id in state.reruns:
            positions.add(state.reruns[run_id].position)
        score = total(run, again)
        return _Behind(
            outcome=run_outcome(run, again),
            score=None if score is None else float(score),
            set=set_row(run.agent.id, run.cycle, scores) if scores else None,
            evidence=run.evidence,
            copies=evidence_views(state, run_id),
            positions=sorted(positions),
        )

    return view


def trace(ledger: Ledger, reads: Reads[Methodology], run_id: str) -> TraceView:
    """The run's figures and the events they rest on, proved against the latest checkpoint."""
    behind = reads.answer(("trace", run_id), _behind(run_id))
    checkpoint = checkpoint_view(ledger)
    events = []
    for position in behind.positions:
        ((_, stream, version, type_, canonical, digest),) = ledger.recorder.select_rows(
            position - 1, position, 1
        )
        proof = ledger.inclusion_proof(position, checkpoint.size)
        events.append(
            TracedEvent(
                position=position,
                type=type_,
                stream=stream,
                version=version,
                hash=digest.hex(),
                canonical=canonical.decode(),
                leaf_hash=leaf_hash(canonical).hex(),
                path=proof.path,
            )
        )
    return TraceView(
        run_id=run_id,
        outcome=behind.outcome,
        score=behind.score,
        set=behind.set,
        evidence=behind.evidence,
        copies=behind.copies,
        checkpoint=checkpoint,
        events=events,
    )
