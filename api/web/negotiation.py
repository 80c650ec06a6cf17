"""One path, two faces: the JSON document, or the page that shows it (ARCHITECTURE.md, "Web
pages"). A handler returns its document; a handler that has a page names its template with
`opt=page("name.html")`, and this response class renders the very same document as that page
when the client prefers `text/html` (a browser) or asks `?format=html`. Nothing is computed on
the way: a page shows the figures of the document its JSON is."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.enums import MediaType
from litestar.exceptions import HTTPException
from litestar.params import QueryParameter
from litestar.response import Template
from litestar.response.base import ASGIResponse
from litestar.status_codes import HTTP_200_OK, HTTP_400_BAD_REQUEST, HTTP_406_NOT_ACCEPTABLE
from litestar.types import ParametersMap

PAGE = "page"
"""The handler option naming the template of a path's page."""

JSON, HTML = "application/json", "text/html"

FORMAT: ParametersMap = {
    "format": QueryParameter(
        annotation=str | None,
        default=None,
        required=False,
        pattern="^(json|html)$",
        description="json or html: overrides the Accept header (html where the path has a page)",
    )
}
"""`?format=json|html`, declared once for every path so that OpenAPI documents it; litestar
does not check a layered parameter no handler names, so `wants_html` checks its value."""

AnyRequest = Request[Any, Any, Any]


def page(template: str) -> dict[str, str]:
    """The handler option that gives a path its page: `@get(..., opt=page("run.html"))`."""
    return {PAGE: template}


def wants_html(request: AnyRequest) -> bool:
    """`?format=` when given, else the Accept header: HTML only when the client prefers it to
    JSON (a browser does; curl, httpx and a missing header get JSON)."""
    chosen: str | None = request.query_params.get("format")
    if chosen is not None:
        if chosen not in ("json", "html"):
            raise HTTPException(
                status_code=HTTP_400_BAD_REQUEST, detail=f"format {chosen!r}: use json or html"
            )
        return chosen == "html"
    best: str = request.accept.best_match([JSON, HTML], default=JSON)
    return best == HTML


def has_page(handler: object) -> bool:
    """Whether a route handler's path has a page (`opt=page(...)`)."""
    return _template(handler) is not None


def check_format(request: AnyRequest) -> None:
    """litestar's `before_request` hook: `?format=` checked on every path, whatever its
    handler returns (a document, a file, a stream): a value other than json or html is a bad
    request, html where the path has no page is not acceptable."""
    asked = wants_html(request) and request.query_params.get("format") == "html"
    if asked and template_of(request) is None:
        raise HTTPException(
            status_code=HTTP_406_NOT_ACCEPTABLE, detail=f"{request.url.path} has no page"
        )


def template_of(request: AnyRequest) -> str | None:
    return _template(request.scope.get("route_handler"))


def _template(handler: object) -> str | None:
    opt = getattr(handler, "opt", None) or {}
    name = opt.get(PAGE)
    return name if isinstance(name, str) else None


class Negotiated(Response[Any]):
    """A document as JSON, or as its page; both answers say they vary with Accept."""

    def to_asgi_response(
        self,
        app: object,
        request: AnyRequest,
        *,
        headers: dict[str, str] | None = None,
        cookies: Iterable[Cookie] | None = None,
        **kwargs: Any,
    ) -> ASGIResponse:
        headers = {**(headers or {}), "Vary": "Accept"}
        template = template_of(request)
        if template is None or not wants_html(request):
            return super().to_asgi_response(
                None, request, headers=headers, cookies=cookies, **kwargs
            )
        return ASGIResponse(
            body=PAGES.render(request, template, self.content),
            media_type=MediaType.HTML,
            status_code=self.status_code or HTTP_200_OK,
            headers=headers,
            cookies=cookies,
        )


class RenderedPages:
    """Pages already rendered, by template, document and address. A page is a function of
    its document and its address alone, and the readers hand back the very same document
    object until the ledger moves, so a page is rendered once per document; each entry holds
    its document, whose identity therefore cannot be reused while the entry lives."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._pages: OrderedDict[tuple[str, int, str, str], tuple[object, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def render(self, request: AnyRequest, template: str, document: object) -> bytes:
        key = (template, id(document), request.url.path, request.url.query)
        with self._lock:
            if (hit := self._pages.get(key)) is not None and hit[0] is document:
                self._pages.move_to_end(key)
                return hit[1]
        engine = request.app.template_engine
        assert engine is not None, "the app has no template engine"
        body: bytes = engine.get_template(template).render(doc=document, request=request).encode()
        with self._lock:
            self._pages[key] = (document, body)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
        return body


PAGES = RenderedPages()


def error_page(
    request: AnyRequest, status: int, detail: str, headers: dict[str, str] | None = None
) -> Response[Any] | None:
    """The page of an error, for a client that prefers HTML; None for the others (JSON)."""
    chosen = request.query_params.get("format")
    if chosen not in (None, "html") or not wants_html(request):
        return None
    return Template(
        "error.html",
        context={"status": status, "detail": detail},
        media_type=MediaType.HTML,
        status_code=status,
        headers={**(headers or {}), "Vary": "Accept"},
    )
