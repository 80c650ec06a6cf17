"""The pages: the same documents as the JSON, rendered as HTML when a browser asks (see
`negotiation`), with Jinja2 templates (`templates/`), the site's stylesheet and scripts
(`static/`), plots drawn on the server (`plots`) and the recording player from npm
(`node_modules/asciinema-player`, installed by `make install`, served from here: the browser
fetches nothing from elsewhere), and Swagger UI for /schema the same way."""

from __future__ import annotations

from pathlib import Path

import structlog
from litestar import Router
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

from api.web.negotiation import FORMAT, Negotiated, check_format, has_page, page
from api.web.templating import template_config

__all__ = [
    "FORMAT",
    "STATIC",
    "Negotiated",
    "check_format",
    "has_page",
    "page",
    "static_files",
    "template_config",
]

log = structlog.get_logger()

STATIC = Path(__file__).parent / "static"
NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
PLAYER = NODE_MODULES / "asciinema-player" / "dist" / "bundle"
SWAGGER = NODE_MODULES / "swagger-ui-dist"
"""Swagger UI, for the OpenAPI document's page at /schema (`api.http.openapi`)."""


def static_files() -> list[Router]:
    """The site's own files at /static/site, the player's at /static/player, Swagger UI's at
    /static/swagger."""
    cache = CacheControlHeader(max_age=3600, public=True)
    routers = [
        create_static_files_router(
            "/static/site", [STATIC], cache_control=cache, include_in_schema=False
        )
    ]
    for path, folder in (("/static/player", PLAYER), ("/static/swagger", SWAGGER)):
        if folder.is_dir():
            routers.append(
                create_static_files_router(
                    path, [folder], cache_control=cache, include_in_schema=False
                )
            )
        else:
            log.warning("npm package missing: run `make install`", expected=str(folder))
    return routers
