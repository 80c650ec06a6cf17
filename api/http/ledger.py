"""The ledger over HTTP: health, signed checkpoints and RFC 9162 proofs, of the tree approved
for the public (up to the latest approved position; nothing past it)."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency

from api.http.limits import AsOf, Position
from api.http.openapi import READ, problems
from api.services.queries import CheckpointView, Health, LedgerQueries
from ledger.ledger import ConsistencyProof, InclusionProof


@get("/healthz", sync_to_thread=True, responses=problems(503))
def healthz(ledger_queries: NamedDependency[LedgerQueries]) -> Health:
    """The server answers from the database; `size` is the latest approved position."""
    return ledger_queries.health()


@get("/ledger/checkpoint", sync_to_thread=True, responses=READ)
def checkpoint(ledger_queries: NamedDependency[LedgerQueries], size: AsOf = None) -> CheckpointView:
    """The signed checkpoint at the latest approved position, or at a tree size up to it."""
    return ledger_queries.checkpoint(size)


@get("/ledger/proof/inclusion", sync_to_thread=True, responses=READ)
def inclusion_proof(
    ledger_queries: NamedDependency[LedgerQueries],
    position: Position,
    size: AsOf = None,
) -> InclusionProof:
    """The audit path of an event in the tree of `size` (the latest approved position by
    default, never past it)."""
    return ledger_queries.inclusion(position, size)


@get("/ledger/proof/consistency", sync_to_thread=True, responses=READ)
def consistency_proof(
    ledger_queries: NamedDependency[LedgerQueries], first: Position, second: Position
) -> ConsistencyProof:
    """The proof that the tree of `second` (at most the latest approved position) extends the
    tree of `first`."""
    return ledger_queries.consistency(first, second)


router = Router("/", route_handlers=[healthz, checkpoint, inclusion_proof, consistency_proof])
