"""SI-IQ section 8: what one fetch records (every distinct file once, failures once, the last
good data kept), decided on the real Epoch exports."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from functools import cache

from adapters.sources import epoch
from domain.events import SourceSnapshotRecorded, SourceTableRecorded, streams
from domain.siiq.benchmark_sources import BY_TABLE, GROUPS_TABLE
from domain.siiq.snapshots import Answer, snapshot_decision
from domain.siiq.source_format import Table
from tests.reference import EPOCH_APR, EPOCH_JAN
from tests.sources_server import epoch_zip

T0 = datetime(2026, 12, 1, 10, tzinfo=UTC)
ADDRESS = "https://epoch.ai/data/benchmark_data.zip"


@cache
def export(folder: str) -> tuple[bytes, tuple[Table, ...]]:
    data = epoch_zip(EPOCH_JAN if folder == "jan" else EPOCH_APR)
    return data, tuple(epoch.parse("benchmark_data.zip", data))


def answer(folder: str, hour: int = 0, **changes: object) -> Answer:
    data, tables = export(folder)
    base = Answer(
        source="epoch",
        address=ADDRESS,
        url=ADDRESS,
        fetched_at=T0.replace(hour=10 + hour),
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        tables=list(tables),
        etag=f'"{folder}"',
    )
    return Answer(**{**{f: getattr(base, f) for f in Answer.__struct_fields__}, **changes})


def test_snapshot_decision_a_new_file_records_its_index_tables_and_the_snapshot() -> None:
    decision = snapshot_decision(answer("apr"), None, None, set())
    assert decision.status == "new"
    *tables, snapshot = decision.events
    assert isinstance(snapshot, SourceSnapshotRecorded)
    assert snapshot.ok
    assert len(snapshot.tables) == 52  # every table summarised
    assert sum(t.rows for t in snapshot.tables) == 4390
    names = sorted(t.table for t in tables if isinstance(t, SourceTableRecorded))
    assert names == sorted([t for s, t in BY_TABLE if s == "epoch"] + [GROUPS_TABLE])
    gpqa = next(
        t for t in tables if isinstance(t, SourceTableRecorded) and t.table == "gpqa_diamond.csv"
    )
    assert gpqa.columns[:3] == ["Model version", "mean_score", "Best score (across scorers)"]
    assert gpqa.rows[0][0] == "gpt-5.4-mini-2026-03-17_high"  # cells in the source's order


def test_snapshot_decision_the_same_file_or_a_304_records_nothing() -> None:
    first = snapshot_decision(answer("apr"), None, None, set()).snapshot
    assert snapshot_decision(answer("apr", 1), first, first, set()).events == []
    again = snapshot_decision(answer("apr", 2, not_modified=True, tables=None), first, first, set())
    assert (again.status, again.events) == ("unchanged", [])


def test_snapshot_decision_a_changed_file_is_recorded_once_with_only_its_changed_tables() -> None:
    jan = snapshot_decision(answer("jan"), None, None, set())
    known = {e.stream for e in jan.events if isinstance(e, SourceTableRecorded)}
    apr = snapshot_decision(answer("apr", 1), jan.snapshot, jan.snapshot, known)
    assert apr.status == "new"
    recorded = {e.table for e in apr.events if isinstance(e, SourceTableRecorded)}
    # lambda_external.csv and others did not change between the exports; the index's tables did.
    assert "gpqa_diamond.csv" in recorded
    assert GROUPS_TABLE in recorded
    unchanged_index_tables = [
        t.name
        for t in export("apr")[1]
        if ("epoch", t.name) in BY_TABLE
        and streams.source_table("epoch", t.name, t.sha256) in known
    ]
    assert not set(unchanged_index_tables) & recorded


def test_snapshot_decision_a_failure_is_recorded_once_and_the_good_file_stays() -> None:
    good = snapshot_decision(answer("apr"), None, None, set()).snapshot
    broken = answer(
        "apr",
        1,
        sha256="a" * 64,
        size=10,
        tables=None,
        failure="benchmark_data.zip: not a complete zip archive",
        failure_kind="truncated",
    )
    first = snapshot_decision(broken, good, good, set())
    assert first.status == "failed"
    [failure] = first.events
    assert isinstance(failure, SourceSnapshotRecorded)
    assert (failure.ok, failure.failure_kind, failure.tables) == (False, "truncated", [])
    assert snapshot_decision(broken, failure, good, set()).events == []  # same failure: once
    # The good file again (a 304 against its validators) clears the failure.
    back = snapshot_decision(answer("apr", 3, not_modified=True, tables=None), failure, good, set())
    assert back.status == "unchanged"
    [cleared] = back.events
    assert isinstance(cleared, SourceSnapshotRecorded)
    assert cleared.ok
    assert (cleared.sha256, cleared.tables) == (good.sha256, good.tables)
