"""structlog on stderr: JSON lines when not on a terminal (or when asked), readable otherwise.
The standard library's records (uvicorn's, the libraries') go through the same renderer, so a
server's log is one format, line by line."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

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
    stamped: list[structlog.types.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *stamped, *renderers],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    _route_standard_logging(stamped, renderers)


class _Rendered(logging.StreamHandler[TextIO]):
    """The handler `configure` puts on the root logger: replaced when configured again, where a
    handler of someone else's (a test's capture) stays."""


def _route_standard_logging(
    stamped: list[structlog.types.Processor], renderers: list[structlog.types.Processor]
) -> None:
    """A root handler that renders as structlog does, naming the record's logger."""
    handler = _Rendered(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamped],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *renderers],
        )
    )
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if not isinstance(h, _Rendered)] + [handler]
    root.setLevel(logging.INFO)
