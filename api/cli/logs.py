"""structlog on stderr: JSON lines when not on a terminal (or when asked), readable otherwise."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(log_format: str | None) -> None:
    fmt = log_format or ("console" if sys.stderr.isatty() else "json")
    renderer: structlog.types.Processor = (
        structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
