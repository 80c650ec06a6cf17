"""OpenRouter's public data (SI-IQ sections 8 and 10: CC BY 4.0), read through its manifest and the
dated, immutable file the manifest points to, verified by SHA-256.

The dated file is a `rankings-daily` response as OpenRouter documents it
(`../shared/data/openrouter/FORMAT_NOTES.md`): `{"data": [{"date", "model_permaslug",
"total_tokens"}], "meta": {"as_of", "start_date", "end_date", "version"}}`. The manifest, whose
format OpenRouter does not document yet, is read as `docs/siiq-sources.md` fixes it:
`{"files": [{"date": "YYYY-MM-DD", "url": "<address, may be relative to the manifest>",
"sha256": "<hex>", "bytes": N}]}`; the newest date is the current file.
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple
from urllib.parse import urljoin

from adapters.sources.tables import json_document, records_table, require_columns, sha256
from domain.siiq.source_format import DigestMismatch, SourceFormatError, Table

NAME = "model_permaslug"
SCORE = "total_tokens"
ROW_FIELDS = ("date", NAME, SCORE)
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class DatedFile(NamedTuple):
    """The file a manifest names as current."""

    day: date
    url: str
    sha256: str
    size: int | None


def newest_file(manifest_url: str, data: bytes) -> DatedFile:
    """The manifest's newest dated file, its address made absolute."""
    document = json_document("manifest", data)
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, list) or not files:
        raise SourceFormatError("manifest", "no 'files' list")
    entries = [_entry(manifest_url, item) for item in files]
    return max(entries, key=lambda e: (e.day, e.url))


def _entry(manifest_url: str, item: object) -> DatedFile:
    if not isinstance(item, dict):
        raise SourceFormatError("manifest", "a file entry is not an object")
    try:
        day = date.fromisoformat(str(item["date"]))
        url = urljoin(manifest_url, str(item["url"]))
        digest = str(item["sha256"]).lower()
    except (KeyError, ValueError) as e:
        raise SourceFormatError(
            "manifest", f"a file entry lacks a date, url or sha256 ({e})"
        ) from e
    if not HEX64.match(digest):
        raise SourceFormatError("manifest", f"{url}: sha256 is not 64 hexadecimal digits")
    size = item.get("bytes")
    return DatedFile(day, url, digest, size if isinstance(size, int) else None)


def verify(expected: DatedFile, data: bytes) -> None:
    """Section 8: the dated file is used only when its SHA-256 is the manifest's."""
    found = sha256(data)
    if found != expected.sha256:
        raise DigestMismatch(
            expected.url.rsplit("/", 1)[-1],
            f"SHA-256 {found} is not the manifest's {expected.sha256}",
        )


def parse(name: str, data: bytes) -> list[Table]:
    """The dated file: its rows (one per day and model) and its `meta` as a one-row table."""
    file = name.rsplit("/", 1)[-1]
    document = json_document(file, data)
    rows = document.get("data") if isinstance(document, dict) else None
    meta = document.get("meta") if isinstance(document, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SourceFormatError(file, "no 'data' list of rows")
    if not isinstance(meta, dict):
        raise SourceFormatError(file, "no 'meta' object")
    digest = sha256(data)
    table = records_table(file, digest, rows)
    require_columns(table, ROW_FIELDS)
    bad = next((r for r in rows if not (isinstance(r[SCORE], str) and r[SCORE].isdigit())), None)
    if bad is not None:
        raise SourceFormatError(file, f"{SCORE} {bad[SCORE]!r} is not a decimal string")
    return [table, records_table(f"{file}#meta", digest, [meta])]
