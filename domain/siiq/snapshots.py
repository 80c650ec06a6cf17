"""What one fetch of one source address records (SI-IQ section 8): every distinct file once, a
failure once until it changes, and the source's last good data kept in use after a failure.

A pure decision: the adapters fetched, archived and parsed; this says which events follow.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from datetime import datetime
from typing import Literal, NamedTuple

import msgspec

from domain.events import (
    DomainEvent,
    SourceSnapshotRecorded,
    SourceTableRecorded,
    TableSummary,
    streams,
)
from domain.siiq.benchmark_sources import BY_TABLE, GROUPS_TABLE
from domain.siiq.matching import EPOCH
from domain.siiq.source_format import Table

Status = Literal["new", "unchanged", "failed"]


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """What fetching one address gave: a file (its SHA-256, size and tables, or the failure
    reading it), a 304 (`not_modified`), or a failure before any file came (`sha256` "")."""

    source: str
    address: str
    url: str
    fetched_at: datetime
    not_modified: bool = False
    sha256: str = ""
    size: int = 0
    tables: list[Table] | None = None
    failure: str | None = None
    failure_kind: str | None = None
    etag: str | None = None
    last_modified: str | None = None


class Decision(NamedTuple):
    """The fetch's status (as `argusic sources fetch` reports it) and the events to append."""

    status: Status
    events: list[DomainEvent]
    snapshot: SourceSnapshotRecorded | None


def recorded_tables(source: str, tables: Sequence[Table]) -> list[Table]:
    """SI-IQ section 8: the tables whose rows the ledger keeps as published (the ones the index
    reads, from any source, and Epoch's model groups); every other table is kept as its summary
    only."""
    return [
        t
        for t in tables
        if (source, t.name) in BY_TABLE or (source == EPOCH and t.name == GROUPS_TABLE)
    ]


def snapshot_decision(
    answer: Answer,
    last: SourceSnapshotRecorded | None,
    good: SourceSnapshotRecorded | None,
    known_tables: Set[str],
) -> Decision:
    """SI-IQ section 8: a new file is recorded with its rows (tables not already held); the
    same good file again, or a 304, records nothing; a failure is recorded (once while it
    stays the same) and the last good data stays; the good file back after a failure is
    recorded so the failure is no longer shown."""
    failed = answer.failure is not None
    if failed:
        before = (last.ok, last.sha256, last.failure) if last is not None else None
        same = before == (False, answer.sha256, answer.failure)
        event = _snapshot(answer, ok=False, tables=[])
        return Decision(status="failed", events=[] if same else [event], snapshot=event)
    if answer.not_modified or (good is not None and answer.sha256 == good.sha256):
        if good is None:  # a 304 for a file never held: nothing to keep using
            event = _snapshot(answer, ok=False, tables=[], why="304 for a file never recorded")
            return Decision(status="failed", events=[event], snapshot=event)
        if last is not None and last.ok:
            return Decision(status="unchanged", events=[], snapshot=None)
        back = msgspec.structs.replace(good, fetched_at=answer.fetched_at)
        return Decision(status="unchanged", events=[back], snapshot=back)
    tables = answer.tables or []
    event = _snapshot(answer, ok=True, tables=tables)
    rows: list[DomainEvent] = [
        SourceTableRecorded(
            source=answer.source,
            table=t.name,
            sha256=t.sha256,
            columns=t.columns,
            rows=[[row.get(c) for c in t.columns] for row in t.rows],
        )
        for t in recorded_tables(answer.source, tables)
        if streams.source_table(answer.source, t.name, t.sha256) not in known_tables
    ]
    return Decision(status="new", events=[*rows, event], snapshot=event)


def _snapshot(
    answer: Answer, *, ok: bool, tables: Sequence[Table], why: str | None = None
) -> SourceSnapshotRecorded:
    return SourceSnapshotRecorded(
        source=answer.source,
        address=answer.address,
        url=answer.url,
        sha256=answer.sha256,
        size=answer.size,
        fetched_at=answer.fetched_at,
        ok=ok,
        failure=answer.failure or why,
        failure_kind=answer.failure_kind or ("fetch" if why else None),
        tables=[
            TableSummary(name=t.name, sha256=t.sha256, rows=len(t.rows), columns=t.columns)
            for t in tables
        ],
        etag=answer.etag,
        last_modified=answer.last_modified,
    )
