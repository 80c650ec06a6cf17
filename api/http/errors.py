"""Our own errors to HTTP statuses, in one place; anything else is a bug: a 500, logged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from eventsourcing.persistence import PersistenceError
from litestar import Request, Response
from litestar.datastructures import State
from litestar.exceptions import HTTPException
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
    HTTP_500_INTERNAL_SERVER_ERROR,
    HTTP_503_SERVICE_UNAVAILABLE,
)
from litestar.types import ExceptionHandlersMap, Send

from api.web.negotiation import error_page
from domain.errors import (
    IntegrityFailure,
    InvalidInput,
    NotFound,
    SetupError,
    StoreUnavailable,
    UsageError,
)

log = structlog.get_logger()
AnyRequest = Request[object, object, State]
Problem = Response[Any]

STATUS: dict[type[Exception], int] = {
    NotFound: HTTP_404_NOT_FOUND,
    InvalidInput: HTTP_400_BAD_REQUEST,
    UsageError: HTTP_400_BAD_REQUEST,
    SetupError: HTTP_503_SERVICE_UNAVAILABLE,
    IntegrityFailure: HTTP_500_INTERNAL_SERVER_ERROR,
}
"""Each of our error categories."""
DATABASE_UNAVAILABLE = "the database is unavailable; try again shortly"
STORE_UNAVAILABLE = "the evidence store is unavailable; try again shortly"


def problem(
    status: int, detail: str, extra: object = None, headers: dict[str, str] | None = None
) -> Problem:
    """A JSON problem document: the status and a sentence saying what is wrong."""
    body: dict[str, object] = {"status_code": status, "detail": detail}
    if extra:
        body["extra"] = extra
    return Response(body, status_code=status, headers=headers)


async def send_problem(send: Send, status: int, detail: str) -> None:
    """The problem document, sent before any routing (a request refused at the door); the
    connection closes, since the request's body was never read."""
    body = msgspec.json.encode({"status_code": status, "detail": detail})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def answer(
    request: AnyRequest,
    status: int,
    detail: str,
    extra: object = None,
    headers: dict[str, str] | None = None,
) -> Problem:
    """The problem document, or its page for a client that prefers HTML."""
    return error_page(request, status, detail, headers) or problem(status, detail, extra, headers)


def _ours(status: int) -> Callable[[AnyRequest, Exception], Problem]:
    def handler(request: AnyRequest, exc: Exception) -> Problem:
        return answer(request, status, str(exc))

    return handler


def _database(request: AnyRequest, exc: PersistenceError) -> Problem:
    """The database's failures, as eventsourcing translates them (a server restarting, a
    connection lost): a 503 saying only that, the driver's words (addresses) in the log."""
    log.warning("database unavailable", path=request.url.path, error=str(exc))
    return answer(request, HTTP_503_SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE)


def _store(request: AnyRequest, exc: StoreUnavailable) -> Problem:
    """The evidence store did not answer: a 503 saying only that, its address in the log."""
    log.warning("evidence store unavailable", path=request.url.path, error=str(exc))
    return answer(request, HTTP_503_SERVICE_UNAVAILABLE, STORE_UNAVAILABLE)


def _litestar(request: AnyRequest, exc: HTTPException) -> Problem:
    """litestar's own refusals (a malformed query, an unknown path), as litestar words them;
    its own failures are bugs of ours too, and logged."""
    if exc.status_code >= HTTP_500_INTERNAL_SERVER_ERROR:
        log.error("internal error", path=request.url.path, error=repr(exc), exc_info=exc)
    return answer(request, exc.status_code, exc.detail, exc.extra, exc.headers)


def _unexpected(request: AnyRequest, exc: Exception) -> Problem:
    log.error("unexpected error", path=request.url.path, error=repr(exc), exc_info=exc)
    return answer(request, HTTP_500_INTERNAL_SERVER_ERROR, "internal error")


def exception_handlers() -> ExceptionHandlersMap:
    handlers: ExceptionHandlersMap = {error: _ours(status) for error, status in STATUS.items()}
    handlers[PersistenceError] = _database
    handlers[StoreUnavailable] = _store
    handlers[HTTPException] = _litestar
    handlers[Exception] = _unexpected
    return handlers
