"""The OpenAPI document (`/schema/openapi.json`) and its page (`/schema`): every status a path
answers is documented, each error as a problem document (JSON, or its page for a browser), and
the page is built from our own copy of Swagger UI (npm's swagger-ui-dist, served under
/static/swagger), so it loads nothing from elsewhere and needs no inline script."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.openapi.spec import (
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute

from api.http.limits import LIMITS_DESCRIPTION
from api.web import has_page

PAGE_TYPE = "text/html"


class Problem(msgspec.Struct, kw_only=True):
    """What every error answers (as JSON): its status and a sentence saying what is wrong;
    `extra` carries litestar's details of a malformed request (which parameter, and why)."""

    status_code: int
    detail: str
    extra: dict[str, Any] | list[Any] | None = None


EVERY_PATH = (400, 413, 414)
"""What any path may answer whatever it does: a malformed request or `?format=`, a body or a
request target over its limit (`api.http.limits`)."""


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """A handler's error statuses, with those of every path, each a problem document."""
    return {
        status: ResponseSpec(
            Problem, description=HTTPStatus(status).phrase, generate_examples=False
        )
        for status in sorted({*EVERY_PATH, *statuses})
    }


READ = problems(404, 503)
"""A read as of a position: what it names may not be there (or not yet, or not public), and
the database may be out of reach."""


def documented(app: Litestar) -> None:
    """Complete the document once, for what the pages add to every path: each error may be
    answered as a page (text/html) to a client that prefers one, a path with a page answers
    its document as one too, and a path without a page takes only `?format=json` (it refuses
    `html` with 406)."""
    paths = app.openapi_schema.paths or {}
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or (item := paths.get(route.path_format)) is None:
            continue
        for method, (handler, _) in route.route_handler_map.items():
            operation: Operation | None = getattr(item, method.lower(), None)
            if operation is not None and operation.responses is not None:
                page = has_page(handler)
                _with_pages(operation.responses, page)
                if not page:
                    _json_only(operation)


def _with_pages(responses: dict[str, Any], page: bool) -> None:
    if not page and "406" not in responses:
        refused: OpenAPIResponse = responses["400"]
        responses["406"] = OpenAPIResponse(
            description="Not Acceptable: this path has no page",
            content=dict(refused.content or {}),
        )
    html = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))
    for status, response in responses.items():
        if isinstance(response, OpenAPIResponse) and (page or int(status) >= 400):
            response.content = {**(response.content or {}), PAGE_TYPE: html}


def _json_only(operation: Operation) -> None:
    """`?format=` as this path takes it: `json` alone (the shared declaration offers html)."""
    for parameter in operation.parameters or []:
        if isinstance(parameter, Parameter) and parameter.name == "format":
            parameter.schema = Schema(
                one_of=[
                    Schema(type=OpenAPIType.STRING, const="json"),
                    Schema(type=OpenAPIType.NULL),
                ]
            )
            parameter.description = "json: this path has no page (html is refused with 406)"


class SchemaPage(OpenAPIRenderPlugin):
    """Swagger UI over the document, from our own files; its start-up is a file too
    (`static/schema.js`), so the page keeps the strict content security policy."""

    def __init__(self) -> None:
        super().__init__(path="/", favicon='<link rel="icon" href="data:,">')

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        title = openapi_schema["info"]["title"]
        return (
            "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{title} API</title>{self.favicon}"
            "<link rel='stylesheet' href='/static/swagger/swagger-ui.css'></head>"
            "<body><div id='swagger-ui'></div>"
            "<script src='/static/swagger/swagger-ui-bundle.js'></script>"
            "<script src='/static/site/schema.js'></script></body></html>"
        ).encode()


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Argusic",
        version="0.1.0",
        path="/schema",
        description=LIMITS_DESCRIPTION,
        render_plugins=[SchemaPage()],
    )
