"""The read API over HTTP: one router per area, thin handlers over the use cases, whose
dependencies litestar provides by parameter name."""

from __future__ import annotations

from litestar import Litestar
from litestar.config.compression import CompressionConfig
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig

from api.http import evidence, hardware, home, ledger, methodology, siiq
from api.http.errors import exception_handlers
from api.web import FORMAT, Negotiated, static_files, template_config
from api.wiring import Argusic


def create_app(argusic: Argusic) -> Litestar:
    def provided(value: object) -> Provide:
        return Provide(lambda: value, use_cache=True, sync_to_thread=False)

    return Litestar(
        route_handlers=[
            home.router,
            ledger.router,
            methodology.router,
            evidence.router,
            siiq.router,
            hardware.router,
            *static_files(),
        ],
        response_class=Negotiated,
        parameters=FORMAT,
        template_config=template_config(argusic.store),
        dependencies={
            "ledger_queries": provided(argusic.ledger_queries),
            "methodology": provided(argusic.methodology),
            "siiq": provided(argusic.siiq),
            "sources": provided(argusic.sources),
            "evidence_store": provided(argusic.store),
        },
        exception_handlers=exception_handlers(),
        compression_config=CompressionConfig(backend="gzip", gzip_compress_level=6),
        openapi_config=OpenAPIConfig(title="Argusic", version="0.1.0", path="/schema"),
    )
