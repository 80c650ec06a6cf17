"""Facts of SI-IQ's sources (SI-IQ sections 1 and 8): each distinct file a source served, its
parse result, the rows the index reads, and a maintainer's confirmation of a name's match."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

from domain.events import streams
from domain.events.base import Count, Event, Text, Value

Sha256 = Annotated[str, msgspec.Meta(pattern=r"^([0-9a-f]{64})?$")]
"""A SHA-256 in hexadecimal, or "" where no bytes came (a fetch that failed)."""


class TableSummary(Value, frozen=True):
    """One table of a fetched file: its name, the SHA-256 of its bytes, how many rows and
    which columns it had (what section 8's guards compare between snapshots)."""

    name: Text
    sha256: Sha256
    rows: Count
    columns: list[str]


class SourceSnapshotRecorded(Event, frozen=True):
    """SI-IQ section 8: one configured address of a source answered with a file we did not hold
    as current (a new or changed file, a failure, or a return to good data after a failure).

    `address` is as configured; `url` is what was fetched (a GitHub file at its exact commit,
    OpenRouter's dated file). `ok` false keeps the source's last good data in use, and
    `failure` says why (shown in /status.json). A 304 or the same bytes again record nothing.
    """

    source: Text
    address: Text
    url: Text
    sha256: Sha256
    size: Count
    fetched_at: datetime
    ok: bool
    failure: str | None = None
    failure_kind: str | None = None
    tables: list[TableSummary] = msgspec.field(default_factory=list)
    etag: str | None = None
    last_modified: str | None = None

    @property
    def stream(self) -> str:
        return streams.source_address(self.source, self.address)


class SourceTableRecorded(Event, frozen=True):
    """The rows of one table the index reads, exactly as published (cells in the source's
    column order), once per distinct bytes of that table: /data/evidence.jsonl is rebuilt from
    these, so it shows every input row as it appeared even after the source has changed."""

    source: Text
    table: Text
    sha256: Sha256
    columns: list[str]
    rows: list[list[Any]]

    @property
    def stream(self) -> str:
        return streams.source_table(self.source, self.table, self.sha256)


class AliasApproved(Event, frozen=True):
    """SI-IQ sections 1 and 8: a maintainer confirmed or corrected which model group a source's
    name is (the `approve_alias` action); the latest for a (source, name) is the only mapping
    that counts, everywhere, history included. An empty `group` says the name is none."""

    source: Text
    name: Text
    group: str
    justification: Text
    operator: str = ""

    @property
    def stream(self) -> str:
        return streams.source_alias(self.source, self.name)
