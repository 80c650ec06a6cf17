"""Reading a source file's bytes into tables: CSV, YAML and JSON, each checked for the failures
SI-IQ section 8 names (an HTML page served as data, an unreadable or cut-off file).

Rows stay exactly as published: a CSV cell is its text, spaces included.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable
from typing import Any

import yaml

from domain.siiq.source_format import (
    HtmlPage,
    MissingColumn,
    Row,
    SourceFormatError,
    Table,
    looks_like_html,
)

LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
"""PyYAML's base loader (in C when built with libyaml): every scalar stays the text written."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_of(name: str, data: bytes, what: str) -> str:
    """The file as UTF-8 text (a byte-order mark dropped), after ruling out an HTML page."""
    if looks_like_html(data):
        raise HtmlPage(name, f"an HTML page was served instead of {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceFormatError(name, f"not UTF-8 text ({e.reason} at byte {e.start})") from e


def csv_table(name: str, data: bytes) -> Table:
    """A CSV file with a header line; a record with more or fewer cells than the header (a file
    cut off mid-record among them) is refused, naming the record."""
    reader = csv.reader(io.StringIO(text_of(name, data, "a CSV file"), newline=""), strict=True)
    try:
        header = next(reader, None)
        if not header:
            raise SourceFormatError(name, "empty file, no header line")
        rows: list[Row] = []
        for number, cells in enumerate(reader, start=1):
            if not cells:
                continue
            if len(cells) != len(header):
                raise SourceFormatError(
                    name,
                    f"record {number} has {len(cells)} cells, the header has {len(header)} "
                    "(a changed format or a file cut off)",
                )
            rows.append(dict(zip(header, cells, strict=True)))
    except csv.Error as e:
        raise SourceFormatError(name, f"not a readable CSV file ({e})") from e
    return Table(name=name, sha256=sha256(data), columns=header, rows=rows)


def yaml_records(name: str, data: bytes) -> Table:
    """A YAML list of mappings (Aider's leaderboards). Scalars are read as the text written
    (no dates or numbers made of them), so each row is as published."""
    text = text_of(name, data, "a YAML file")
    try:
        loaded = yaml.load(text, Loader=LOADER)
    except yaml.YAMLError as e:
        raise SourceFormatError(name, f"not a readable YAML file ({_first_line(e)})") from e
    if not isinstance(loaded, list) or not all(isinstance(r, dict) for r in loaded):
        raise SourceFormatError(name, "not a list of records")
    return Table(name=name, sha256=sha256(data), columns=_columns(loaded), rows=loaded)


def json_document(name: str, data: bytes) -> Any:
    text = text_of(name, data, "a JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise SourceFormatError(
            name, f"not a readable JSON file ({e.msg} at line {e.lineno}, column {e.colno})"
        ) from e


def records_table(name: str, digest: str, rows: list[Row]) -> Table:
    return Table(name=name, sha256=digest, columns=_columns(rows), rows=rows)


def require_columns(table: Table, columns: Iterable[str], what: str = "column") -> None:
    """Every named column is in the table's header (CSV) or in every record (YAML, JSON)."""
    wanted = list(columns)
    if table.rows and not isinstance(table.rows[0], dict):
        raise SourceFormatError(table.name, "rows are not records")
    present = set(table.columns)
    every = [c for c in wanted if c in present and all(c in row for row in table.rows)]
    missing = [c for c in wanted if c not in every]
    if missing:
        raise MissingColumn(
            table.name, f"no {what} {', '.join(repr(c) for c in missing)} (renamed or removed?)"
        )


def _columns(rows: list[Row]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
