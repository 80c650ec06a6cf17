"""What a source file becomes once read (SI-IQ sections 8 and 10): tables of rows kept exactly as
the source published them, and the named errors a file that cannot be read gives.

A source adapter turns a file's bytes into `Table`s; nothing in a row is changed (a cell's
surrounding spaces included), so `/data/evidence.jsonl` can show each input row as it appeared.
Names are trimmed where they are read (`domain.siiq.matching.trimmed`), never in the row.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from domain.errors import InvalidInput

Row = dict[str, Any]
"""One row as published: CSV and YAML cells as text, JSON values as JSON."""


class Table(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One table of a source file: a CSV inside Epoch's zip, a leaderboard YAML, a category of a
    JSON file. `sha256` is of the bytes the table was read from (the zip member, or the file)."""

    name: str
    sha256: str
    columns: list[str]
    rows: list[Row]


class SourceFailure(InvalidInput):
    """A source could not be read (SI-IQ section 8: its last good data is kept and the failure
    is shown in /status.json). `kind` names the failure for machines, the message for people."""

    kind = "failure"

    def __init__(self, file: str, reason: str) -> None:
        super().__init__(f"{file}: {reason}")
        self.file = file
        self.reason = reason


class Unreachable(SourceFailure):
    """The address did not answer with the file: a network error, a timeout, a status other
    than 200 or 304, a redirect loop."""

    kind = "fetch"


class SourceFormatError(SourceFailure):
    """A source file is not in the format its adapter reads (a format change)."""

    kind = "format"


class HtmlPage(SourceFormatError):
    """An HTML page (an error or a login page) served where a data file was expected, even with
    status 200."""

    kind = "html"


class TruncatedArchive(SourceFormatError):
    """A zip archive that ends before its central directory, or whose members do not read."""

    kind = "truncated"


class MissingColumn(SourceFormatError):
    """A column the adapter reads (a score column, a model name column) is not in the file: the
    source renamed or removed it."""

    kind = "column"


class DigestMismatch(SourceFormatError):
    """A file whose SHA-256 is not the one its manifest announced (OpenRouter)."""

    kind = "digest"


class TooLarge(SourceFailure):
    """A file larger than the configured bound."""

    kind = "size"


HTML_START = re.compile(rb"^\s*(?:<!doctype\s+html|<html|<head|<body|<\?xml[^>]*>\s*<html)", re.I)


def looks_like_html(data: bytes) -> bool:
    """SI-IQ section 8 (a format change): a file that opens like an HTML document is a page, not
    data, whatever status it was served with."""
    return HTML_START.match(data[:1024].lstrip(b"\xef\xbb\xbf")) is not None
