"""`trace RUN_ID`: every ledger event behind a run's outcome, score and its set's middle, each
with an inclusion proof an auditor checks offline against the signed checkpoint."""

from __future__ import annotations

import msgspec

from api.services.queries import CheckpointView, LedgerQueries, MethodologyQueries
from ledger.merkle import leaf_hash
from projections.views.trace import TraceBasis


class TracedEvent(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    type: str
    stream: str
    version: int
    hash: str
    canonical: str
    leaf_hash: str
    path: list[str]


class TraceView(TraceBasis, frozen=True, kw_only=True):
    """The run's figures, what they rest on, and each of those events proved."""

    checkpoint: CheckpointView
    events: list[TracedEvent]


def trace(ledger: LedgerQueries, methodology: MethodologyQueries, run_id: str) -> TraceView:
    """The run's figures and the events they rest on, proved against the latest checkpoint."""
    basis = methodology.trace_basis(run_id)
    checkpoint = ledger.checkpoint()
    events = []
    for position in basis.positions:
        (row,) = ledger.ledger.recorder.select_rows(position - 1, position, 1)
        proof = ledger.inclusion(position, checkpoint.size)
        events.append(
            TracedEvent(
                position=position,
                type=row.type,
                stream=row.stream,
                version=row.version,
                hash=row.hash.hex(),
                canonical=row.canonical.decode(),
                leaf_hash=leaf_hash(row.canonical).hex(),
                path=proof.path,
            )
        )
    return TraceView(**msgspec.structs.asdict(basis), checkpoint=checkpoint, events=events)
