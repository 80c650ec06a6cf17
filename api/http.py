"""The read API over HTTP: thin litestar handlers over the functions the CLI calls too."""

from __future__ import annotations

from litestar import Litestar, Request, Response, get
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.params import FromQuery
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
    HTTP_500_INTERNAL_SERVER_ERROR,
)

from api import service
from ledger.ledger import ConsistencyProof, InclusionProof, Ledger, LedgerIntegrityError
from ledger.merkle import ProofError


def _ledger(state: State) -> Ledger:
    ledger: Ledger = state.ledger
    return ledger


@get("/healthz", sync_to_thread=True)
def healthz(state: State) -> service.Health:
    return service.health(_ledger(state))


@get("/ledger/checkpoint", sync_to_thread=True)
def checkpoint(state: State, size: FromQuery[int | None] = None) -> service.CheckpointView:
    return service.checkpoint_view(_ledger(state), size)


@get("/ledger/proof/inclusion", sync_to_thread=True)
def inclusion_proof(
    state: State, position: FromQuery[int], size: FromQuery[int | None] = None
) -> InclusionProof:
    return _ledger(state).inclusion_proof(position, size)


@get("/ledger/proof/consistency", sync_to_thread=True)
def consistency_proof(
    state: State, first: FromQuery[int], second: FromQuery[int]
) -> ConsistencyProof:
    return _ledger(state).consistency_proof(first, second)


@get("/methodology/editions", sync_to_thread=True)
def editions(state: State, as_of: FromQuery[int | None] = None) -> service.EditionsView:
    return service.editions_view(_ledger(state), as_of)


def _error(status: int) -> object:
    def handler(_: Request[object, object, State], exc: Exception) -> Response[dict[str, object]]:
        return Response({"status_code": status, "detail": str(exc)}, status_code=status)

    return handler


def create_app(ledger: Ledger) -> Litestar:
    return Litestar(
        route_handlers=[healthz, checkpoint, inclusion_proof, consistency_proof, editions],
        state=State({"ledger": ledger}),
        exception_handlers={
            LookupError: _error(HTTP_404_NOT_FOUND),
            ProofError: _error(HTTP_400_BAD_REQUEST),
            LedgerIntegrityError: _error(HTTP_500_INTERNAL_SERVER_ERROR),
        },
        openapi_config=OpenAPIConfig(title="Argusic", version="0.1.0", path="/schema"),
    )
