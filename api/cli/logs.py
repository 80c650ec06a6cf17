"""structlog on stderr: JSON lines when not on a terminal (or when asked), readable otherwise."""

from __future__ import annotations

import logging
import sys

import structlog
from structlog.dev import RichTracebackFormatter
from structlog.tracebacks import ExceptionDictTransformer


def configure(log_format: str | None) -> None:
    fmt = log_format or ("console" if sys.stderr.isatty() else "json")
    # An error's traceback is logged with its frames, never their local variables: a local
    # can hold a key or a token, and no secret reaches a log line.
    renderers: list[structlog.types.Processor] = (
        [
            structlog.dev.ConsoleRenderer(
                exception_formatter=RichTracebackFormatter(show_locals=False)
            )
        ]
        if fmt == "console"
        else [
            structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False)),
            structlog.processors.JSONRenderer(),
        ]
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *renderers,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
