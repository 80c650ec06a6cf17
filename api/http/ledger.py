"""The ledger over HTTP: health, signed checkpoints and RFC 9162 proofs."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import FromQuery

from api.services.queries import CheckpointView, Health, LedgerQueries
from ledger.ledger import ConsistencyProof, InclusionProof


@get("/healthz", sync_to_thread=True)
def healthz(ledger_queries: NamedDependency[LedgerQueries]) -> Health:
    return ledger_queries.health()


@get("/ledger/checkpoint", sync_to_thread=True)
def checkpoint(
    ledger_queries: NamedDependency[LedgerQueries], size: FromQuery[int | None] = None
) -> CheckpointView:
    return ledger_queries.checkpoint(size)


@get("/ledger/proof/inclusion", sync_to_thread=True)
def inclusion_proof(
    ledger_queries: NamedDependency[LedgerQueries],
    position: FromQuery[int],
    size: FromQuery[int | None] = None,
) -> InclusionProof:
    return ledger_queries.inclusion(position, size)


@get("/ledger/proof/consistency", sync_to_thread=True)
def consistency_proof(
    ledger_queries: NamedDependency[LedgerQueries], first: FromQuery[int], second: FromQuery[int]
) -> ConsistencyProof:
    return ledger_queries.consistency(first, second)


router = Router("/", route_handlers=[healthz, checkpoint, inclusion_proof, consistency_proof])
