"""The ledger over HTTP: health, signed checkpoints and RFC 9162 proofs."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency

from api.http.limits import AsOf, Position
from api.http.openapi import READ, problems
from api.services.queries import CheckpointView, Health, LedgerQueries
from ledger.ledger import ConsistencyProof, InclusionProof


@get("/healthz", sync_to_thread=True, responses=problems(503))
def healthz(ledger_queries: NamedDependency[LedgerQueries]) -> Health:
    return ledger_queries.health()


@get("/ledger/checkpoint", sync_to_thread=True, responses=READ)
def checkpoint(ledger_queries: NamedDependency[LedgerQueries], size: AsOf = None) -> CheckpointView:
    return ledger_queries.checkpoint(size)


@get("/ledger/proof/inclusion", sync_to_thread=True, responses=READ)
def inclusion_proof(
    ledger_queries: NamedDependency[LedgerQueries],
    position: Position,
    size: AsOf = None,
) -> InclusionProof:
    return ledger_queries.inclusion(position, size)


@get("/ledger/proof/consistency", sync_to_thread=True, responses=READ)
def consistency_proof(
    ledger_queries: NamedDependency[LedgerQueries], first: Position, second: Position
) -> ConsistencyProof:
    return ledger_queries.consistency(first, second)


router = Router("/", route_handlers=[healthz, checkpoint, inclusion_proof, consistency_proof])
