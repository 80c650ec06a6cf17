"""Section 8's guards per source: a new snapshot that changed format or lost more than 30% of
its rows keeps the source's last data; a shrunk file is let in after 24 hours."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from api.services.siiq_run import Run
from domain.events import (
    SourceDataAccepted,
    SourceDataKept,
    SourceUsed,
    TableSummary,
)
from domain.siiq import guards as rules
from domain.siiq.benchmark_sources import BENCHMARKS, BY_TABLE
from domain.siiq.guards import TableShape
from domain.siiq.matching import EPOCH
from projections.siiq_sources import Sources, good_snapshots


def snapshots(sources: Sources) -> dict[str, str]:
    """Each source's current good data, named by its files' SHA-256s; Epoch AI's also by the
    approved aliases, since a re-matched name changes the values its files give."""
    found = {}
    for source in sorted({a.source for a in sources.addresses.values()}):
        good = good_snapshots(sources, source)
        if good:
            found[source] = "+".join(s.sha256 for s in good)
    if EPOCH in found and sources.aliases:
        digest = hashlib.sha256(msgspec.json.encode(sources.aliases)).hexdigest()
        found[EPOCH] += f"~aliases:{digest[:16]}"
    return found


def shapes(sources: Sources, source: str) -> list[TableSummary]:
    return [
        msgspec.structs.replace(t, name=f"{s.address}#{t.name}")
        for s in good_snapshots(sources, source)
        for t in s.tables
    ]


def shape(tables: Sequence[TableSummary]) -> list[TableShape]:
    return [TableShape(t.name, t.rows, tuple(t.columns)) for t in tables]


BENCHMARK_TABLES = {s.table for s in BENCHMARKS.values() if s.source == EPOCH}


def _keep_ratio(run: Run, source: str, tables: Sequence[TableSummary]) -> float:
    """The share of a file's rows the parser keeps: for Epoch AI, the rows read as results of
    its benchmark tables' rows; every row for a source the index does not read."""
    if source != EPOCH:
        return 1.0
    intake = run.intake()
    rows = sum(t.rows for t in tables if t.name.rsplit("#", 1)[-1] in BENCHMARK_TABLES)
    kept = sum(line.source == EPOCH for line in intake.evidence) if intake else 0
    return 1.0 if intake is None or rows == 0 else kept / rows


def source_guards(run: Run, current: Mapping[str, str]) -> tuple[dict[str, str], list[SourceUsed]]:
    """Section 8, per source: a new snapshot that changed format or lost more than 30% of its
    rows (of the source, or of one benchmark's table) keeps the last data, shown in
    /status.json; a shrunk file is let in once every file of 24 hours was as small with the
    same share kept. Returns the snapshot used per source and the newly let in ones."""
    used: dict[str, str] = {}
    uses: list[SourceUsed] = []
    for source, snapshot in current.items():
        before = run.guards.used.get(source)
        kept = run.guards.kept.get(source, [])
        tables = shapes(run.sources, source)
        if before is not None and snapshot == before.snapshot:
            used[source] = snapshot
            if kept:
                run.events.append(_accepted(run, source, snapshot, "the last good file again"))
            continue
        ratio = _keep_ratio(run, source, tables)
        problem = None if before is None else _shape_problem(source, before, tables)
        if (
            problem is not None
            and problem[0] == "rows"
            and _shrink_passes(run, before, kept, tables, ratio)
        ):
            reason = "a smaller file for 24 hours with the same share of rows kept"
            run.events.append(_accepted(run, source, snapshot, reason))
            problem = None
        elif problem is None and kept:
            run.events.append(_accepted(run, source, snapshot, "good data again"))
        if problem is None:
            used[source] = snapshot
            uses.append(
                SourceUsed(source=source, snapshot=snapshot, tables=tables, keep_ratio=ratio)
            )
            continue
        assert before is not None
        used[source] = before.snapshot
        if not kept or kept[-1].snapshot != snapshot or kept[-1].reason != problem[1]:
            run.events.append(
                SourceDataKept(
                    at=run.now,
                    source=source,
                    snapshot=snapshot,
                    kind=problem[0],
                    reason=problem[1],
                    keep_ratio=ratio,
                    rows=sum(t.rows for t in tables),
                )
            )
        run.note(kept=[*run.report.kept, source])
    return used, uses


def score_columns(source: str, tables: Sequence[TableShape]) -> dict[str, str]:
    """The score column of each of Epoch AI's benchmark tables (`<address>#<table>`)."""
    if source != EPOCH:
        return {}
    found = {}
    for table in tables:
        entry = BY_TABLE.get((EPOCH, table.name.rsplit("#", 1)[-1]))
        if entry is not None:
            found[table.name] = entry[1].column
    return found


def _accepted(run: Run, source: str, snapshot: str, reason: str) -> SourceDataAccepted:
    return SourceDataAccepted(at=run.now, source=source, snapshot=snapshot, reason=reason)


def _shape_problem(
    source: str, before: SourceUsed, tables: Sequence[TableSummary]
) -> tuple[Literal["format", "rows"], str] | None:
    old, new = shape(before.tables), shape(tables)
    changed = rules.format_change(old, new, score_columns(source, old))
    if changed is not None:
        return "format", f"format changed: {changed}"
    rows_now = {t.name: t.rows for t in new}
    per_table = {
        t.name: (t.rows, rows_now.get(t.name, 0))
        for t in old
        if source != EPOCH or t.name.rsplit("#", 1)[-1] in BENCHMARK_TABLES
    }
    lost = rules.row_loss(old, new, per_table)
    return None if lost is None else ("rows", lost)


def _shrink_passes(
    run: Run,
    before: SourceUsed | None,
    kept: Sequence[SourceDataKept],
    tables: Sequence[TableSummary],
    ratio: float,
) -> bool:
    """Section 8's shrunk-file rule over the files kept out since the first smaller one."""
    shrunk = [k for k in kept if k.kind == "rows"]
    if before is None or not shrunk:
        return False
    rows = sum(t.rows for t in tables)
    return rules.shrink_accepted(
        before.keep_ratio,
        [*(k.keep_ratio or 0.0 for k in shrunk), ratio],
        since=shrunk[0].at,
        now=run.now,
        rows_since=[*(k.rows for k in shrunk), rows],
    )
