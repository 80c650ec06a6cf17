"""Epoch AI's benchmark data (SI-IQ section 10: CC BY 4.0): the `benchmark_data.zip` export with
its CSV files at the root (and `additional_eci_data/`), or one of those CSV files on its own.

Every CSV member becomes a table named by its path in the zip, with the SHA-256 of its bytes.
A cut-off zip, an HTML page in its place, or a table the index reads whose version or score
column is gone fails with a named error; the tables the index does not read are kept as found.
"""

from __future__ import annotations

import io
import zipfile

from adapters.sources.tables import csv_table, require_columns, sha256
from domain.siiq.benchmark_sources import GROUPS_TABLE, required_columns
from domain.siiq.source_format import (
    HtmlPage,
    MissingColumn,
    Table,
    TooLarge,
    TruncatedArchive,
    looks_like_html,
)

MAX_UNPACKED = 512 << 20
"""The most a zip may unpack to, so a small file cannot fill the memory."""


def parse(name: str, data: bytes) -> list[Table]:
    """The tables of an Epoch file: every CSV member of a zip (by path), or the CSV itself."""
    if looks_like_html(data):
        raise HtmlPage(name, "an HTML page was served instead of Epoch AI's data")
    if name.lower().endswith(".csv"):
        tables = [csv_table(name.rsplit("/", 1)[-1], data)]
    else:
        tables = _members(name, data)
        if GROUPS_TABLE not in {t.name for t in tables}:
            raise MissingColumn(name, f"no {GROUPS_TABLE} (the model groups) in the archive")
    for table in tables:
        require_columns(table, required_columns(table.name))
    return tables


def _members(name: str, data: bytes) -> list[Table]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as e:
        raise TruncatedArchive(name, f"not a complete zip archive ({e})") from e
    with archive:
        members = sorted(
            (i for i in archive.infolist() if i.filename.lower().endswith(".csv")),
            key=lambda i: i.filename,
        )
        if sum(i.file_size for i in members) > MAX_UNPACKED:
            raise TooLarge(name, f"unpacks to more than {MAX_UNPACKED} bytes")
        tables = []
        for info in members:
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, EOFError, OSError) as e:
                raise TruncatedArchive(name, f"member {info.filename} does not read ({e})") from e
            tables.append(csv_table(info.filename, content))
    if not tables:
        raise TruncatedArchive(name, "the archive holds no CSV file")
    return tables


__all__ = ["parse", "sha256"]
