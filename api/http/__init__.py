"""The read API over HTTP: one router per area, thin handlers over the use cases, whose
dependencies litestar provides by parameter name."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Request
from litestar.di import Provide

from api.http import (
    evidence,
    hardware,
    home,
    ledger,
    methodology,
    operators,
    renders,
    siiq,
    tiles,
)
from api.http.caching import cached
from api.http.errors import exception_handlers
from api.http.headers import secured
from api.http.limits import MAX_BODY_BYTES, BoundedRequest, check_positions, limited
from api.http.openapi import documented, openapi_config
from api.web import FORMAT, STATIC, Negotiated, check_format, static_files, template_config
from api.web.site_check import SiteCheck
from api.web.templating import environment
from api.wiring import Argusic


def create_app(argusic: Argusic) -> Litestar:
    """The public API: every read as of an approved publication position, the latest by
    default (methodology section 1), the ledger's included, and the one write, a signed
    operator action (405 on a server that only reads: its ledger holds no signing key)."""

    def provided(value: object) -> Provide:
        return Provide(lambda: value, use_cache=True, sync_to_thread=False)

    # read once, as the server starts: the methodology page states the budgets and the key limit
    # the runner is configured with (section 7), and a bad configuration stops the start
    _ = argusic.orchestrator

    app = Litestar(
        route_handlers=[
            home.router,
            ledger.router,
            tiles.router,
            methodology.router,
            evidence.router,
            renders.router,
            siiq.router,
            hardware.router,
            operators.router if argusic.ledger.writes else operators.read_only_router,
            *static_files(),
        ],
        response_class=Negotiated,
        parameters=FORMAT,
        template_config=template_config(argusic.store),
        dependencies={
            "ledger_queries": provided(argusic.public_ledger),
            "methodology": provided(argusic.public),
            "siiq": provided(argusic.public_siiq),
            "sources": provided(argusic.public_sources),
            "evidence_store": provided(argusic.store),
            "actions": provided(argusic.actions),
        },
        exception_handlers=exception_handlers(),
        openapi_config=openapi_config(),
        request_max_body_size=MAX_BODY_BYTES,
        request_class=BoundedRequest,
        before_send=[secured],
        before_request=checked,
        logging_config=None,  # the CLI routes every record through structlog (api/cli/logs.py)
    )
    documented(app)
    # The limits guard every request, routed or not (litestar's own middleware runs only on a
    # route that matched), inside the send that adds the security headers; behind them, the
    # answers are tagged, compressed and kept per approved position (`caching`).
    app.asgi_handler = limited(cached(app.asgi_handler, argusic.public.published_position))
    return app


def checked(request: Request[Any, Any, Any]) -> None:
    """litestar's `before_request` hook, before a handler's parameters are read: `?format=`
    on every path, and positions written in digits."""
    check_format(request)
    check_positions(request)


def site_check(argusic: Argusic) -> SiteCheck:
    """SI-IQ section 8's check of the pages a publication puts online, with this site's
    templates, the paths it serves whatever the data (its routes without parameters) and its
    static files."""
    fixed = [
        route.path
        for route in create_app(argusic).routes
        if not route.path_parameters and "GET" in getattr(route, "methods", ())
    ]
    return SiteCheck(environment(argusic.store), fixed, {"/static/site": STATIC})
