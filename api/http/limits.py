"""What the API accepts at most, refused before any work: a request target (path and query)
over `MAX_TARGET_BYTES` (414), a body over `MAX_BODY_BYTES` (413), a query parameter given more
than once (400), a JSON body nested too deep (400), and positions and tree sizes not written in
digits or past what the ledger's 64-bit columns hold (400). The numbers are documented in the
OpenAPI document and in docs/api.md."""

from __future__ import annotations

import re
from collections import Counter
from typing import Annotated, Any
from urllib.parse import parse_qsl

from litestar import Request
from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import ClientException, ValidationException
from litestar.handlers import BaseRouteHandler
from litestar.params import QueryParameter
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    HTTP_414_REQUEST_URI_TOO_LONG,
)
from litestar.types import ASGIApp, Receive, Scope, Send

from api.http.errors import send_problem
from api.services.json_input import TOO_DEEP

MAX_TARGET_BYTES = 4_096
"""A request's path and query string together; no address of ours comes near it."""
MAX_BODY_BYTES = 65_536
"""A request body: the one body we take, a signed operator action, is under 2 KB."""
MAX_POSITION = 2**63 - 1
"""A ledger position or tree size: the largest the ledger's bigint columns hold."""


def bounded(least: float, most: float) -> Any:
    """A query parameter from `least` to `most`, documented with the bounds as given: litestar
    writes a bound as a float (2^63 - 1 becomes 2^63) and leaves out a bound of 0."""
    return QueryParameter(ge=least, le=most, schema_extra={"minimum": least, "maximum": most})


_POSITION = bounded(0, MAX_POSITION)
Position = Annotated[int, _POSITION]
"""A ledger position or tree size given in a query (`position`, `first`, `second`)."""
AsOf = Annotated[int | None, _POSITION]
"""An optional one (`as_of`, `size`): the latest when left out."""
_DIGITS = re.compile("[0-9]+")
_POSITIONS = "argusic.positions"
"""The `opt` key under which a handler keeps the names of its position parameters."""

LIMITS_DESCRIPTION = (
    f"Limits: a request target (path and query string) of at most {MAX_TARGET_BYTES:,} bytes "
    f"(else 414), a request body of at most {MAX_BODY_BYTES:,} bytes (else 413), positions "
    f"and tree sizes from 0 to {MAX_POSITION} (else 400), each query parameter given once "
    "(else 400). Every error is a JSON problem document `{status_code, detail}` (a page for a "
    "browser). Positions: every read answers as of the latest approved publication position; "
    "`as_of` must be an approved one (else 404 naming the nearest approved position at or "
    "below it), a tree `size` or `second` at most the latest (else 404)."
)


def refusal(scope: Scope) -> tuple[int, str] | None:
    """Why a request is refused before it is routed, if it is."""
    target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"])
    if target > MAX_TARGET_BYTES:
        return (
            HTTP_414_REQUEST_URI_TOO_LONG,
            f"the request's path and query are {target:,} bytes; at most "
            f"{MAX_TARGET_BYTES:,} are read",
        )
    length = Headers.from_scope(scope).get("content-length", "0")
    if not length.isdigit() or int(length) > MAX_BODY_BYTES:
        return (
            HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            f"the request body is {length} bytes; at most {MAX_BODY_BYTES:,} are read",
        )
    return _repeated_parameter(scope["query_string"])


def _repeated_parameter(query: bytes) -> tuple[int, str] | None:
    """A query parameter given twice is ambiguous (no parameter of ours takes a list): refused,
    not read as whichever came last."""
    if b"&" not in query:
        return None
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, separator="&")  # litestar's
    for name, times in Counter(name for name, _ in pairs).most_common(1):  # none: "&&"
        if times > 1:
            return (
                HTTP_400_BAD_REQUEST,
                f"the query parameter {name!r} is given {times} times; give each parameter once",
            )
    return None


def limited(app: ASGIApp) -> ASGIApp:
    """`app` behind the limits: every HTTP request, whatever its path, routed or not."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and (refused := refusal(scope)) is not None:
            await send_problem(send, *refused)
            return
        await app(scope, receive, send)

    return guard


def check_positions(request: Request[Any, Any, Any]) -> None:
    """Part of litestar's `before_request` hook: a position or tree size is written in digits.
    litestar would read `1.0` or `-0` as a number; the document says an integer from 0."""
    for name in _positions(request.route_handler):
        value = request.query_params.get(name)
        if value is not None and not _DIGITS.fullmatch(value):
            message = f"a position is written in digits, 0 to {MAX_POSITION}"
            raise ValidationException(
                detail=f"the query parameter {name!r} is not one: {message}",
                extra=[{"message": message, "key": name, "source": "query"}],
            )


def _positions(handler: BaseRouteHandler) -> tuple[str, ...]:
    """The query parameters a handler declares as positions (`Position`, `AsOf`), found once
    and kept in its `opt`, litestar's place for what hooks learn of a handler."""
    if _POSITIONS not in handler.opt:
        fields = handler.parsed_fn_signature.parameters.items()
        handler.opt[_POSITIONS] = tuple(
            name for name, field in fields if field.kwarg_definition == _POSITION
        )
    return handler.opt[_POSITIONS]  # type: ignore[no-any-return]


class BoundedRequest(Request[Any, Any, Any]):
    """A request whose JSON body, nested too deep, is a bad request (400), not a traceback."""

    async def json(self) -> Any:
        try:
            return await super().json()
        except RecursionError as e:  # msgspec's refusal of deep nesting
            raise ClientException(detail=f"the request body is {TOO_DEEP}") from e
