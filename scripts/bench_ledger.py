"""Ledger throughput on SQLite and PostgreSQL, each beside a raw baseline in the same run.

    python scripts/bench_ledger.py [--events 1000000] [--backends sqlite,postgresql]

The baseline stores and reads the very same rows (position, stream, version, type, canonical
bytes, SHA-256) in a plain table with the same statements, minus everything the ledger adds:
hashing, the Merkle tree, signing and checkpoints. Reads are timed in interleaved rounds,
each work at its best round; `ledger verify` runs in one process and in one per core.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.wiring import Settings, init, open_ledger
from domain.events import EditionDrafted
from ledger.batch import StoredRow
from ledger.heads_map import map_root
from ledger.ledger import Ledger, NewEvent
from ledger.verify import VerifyReport, verify
from scripts.bench_floors import ONE_CALL_APPEND, VERIFY, beside

PG_URL = os.environ.get("ARGUSIC_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
BATCH = 100
WINDOW = 50_000
ROUNDS = 3
SUMMARY = "A changelog entry of realistic length, as the methodology writes them. " * 3


def events(start: int, count: int) -> list[NewEvent]:
    return [
        NewEvent(EditionDrafted(version=f"{n}.0", drafted=date(2026, 9, 1), summary=SUMMARY), 1)
        for n in range(start, start + count)
    ]


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds else float("inf")


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


class Raw:
    """The baseline: the same rows in a plain table, through the bare driver."""

    def __init__(self, backend: str, folder: Path, schema: str) -> None:
        self.backend = backend
        if backend == "sqlite":
            self.conn: sqlite3.Connection | psycopg.Connection[tuple[object, ...]] = (
                sqlite3.connect(folder / "raw.db", isolation_level=None)
            )
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute(
                "CREATE TABLE raw (position INTEGER PRIMARY KEY, stream TEXT, version INTEGER,"
                " type TEXT, canonical BLOB, hash BLOB, UNIQUE (stream, version))"
            )
        else:
            self.conn = psycopg.connect(PG_URL, autocommit=True)
            self.conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            self.conn.execute(
                "CREATE TABLE raw (position bigint PRIMARY KEY, stream text, version bigint,"
                " type text, canonical bytea, hash bytea, UNIQUE (stream, version))"
            )

    def _cursor(self) -> Any:
        """Binary results on PostgreSQL, as the ledger reads them."""
        if isinstance(self.conn, sqlite3.Connection):
            return self.conn.cursor()
        return self.conn.cursor(binary=True)

    def settle(self) -> None:
        """Let the database finish background work (dirty pages, statistics) before a timed
        phase, so no phase pays for the one before it."""
        if isinstance(self.conn, sqlite3.Connection):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return
        self.conn.execute("VACUUM ANALYZE")
        self.conn.execute("CHECKPOINT")

    def insert(self, rows: list[StoredRow]) -> None:
        if isinstance(self.conn, sqlite3.Connection):
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT INTO raw VALUES (?, ?, ?, ?, ?, ?)", rows)
            self.conn.execute("COMMIT")
            return
        # One statement on an autocommit connection is a transaction of its own, as the ledger's
        # batch is: no BEGIN and COMMIT round trips around it.
        self.conn.execute(
            "INSERT INTO raw SELECT * FROM unnest(%b::bigint[], %b::text[], %b::bigint[],"
            " %b::text[], %b::bytea[], %b::bytea[])",
            [list(c) for c in zip(*rows, strict=True)],
            prepare=True,
        )

    def select_all(self) -> int:
        return select_all(self._cursor, "raw", "?" if self.backend == "sqlite" else "%s")


def select_all(cursor: Callable[[], Any], table: str, marker: str) -> int:
    """The plain paged select every read is measured against: rows in position order, 10,000
    a query, each page after the last position of the one before."""
    after, seen = 0, 0
    query = f"SELECT * FROM {table} WHERE position > {marker} ORDER BY position LIMIT 10000"
    while True:
        page = cursor().execute(query, (after,)).fetchall()
        seen += len(page)
        if len(page) < 10_000:
            return seen
        after = page[-1][0]


@contextmanager
def backend_settings(backend: str, folder: Path) -> Iterator[tuple[Settings, str]]:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    if backend == "sqlite":
        yield Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json"), schema
        return
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield Settings(f"{PG_URL}?schema={schema}", folder / "home", "json"), schema
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def timed_copy(ledger: Ledger, raw: Raw, after: int, upto: int, per_transaction: int) -> float:
    """Insert the ledger's rows (after, upto] into the raw table, `per_transaction` rows a
    transaction; only the inserts are timed."""
    spent = 0.0
    for start in range(after, upto, 10_000):
        page = ledger.recorder.select_rows(start, min(start + 10_000, upto), 10_000)
        for i in range(0, len(page), per_transaction):
            spent += timed(lambda rows=page[i : i + per_transaction]: raw.insert(rows))
    return spent


def replay_with_hashes(ledger: Ledger) -> int:
    count = 0
    for row in ledger.rows():
        if hashlib.sha256(row[4]).digest() != row[5]:
            raise SystemExit(f"hash mismatch at {row[0]}")
        count += 1
    return count


def verified(report: VerifyReport) -> None:
    if not report.ok:
        raise SystemExit(f"ledger verify failed: {report.problems[:3]}")


def reads(
    ledger: Ledger, raw: Raw, opener: Callable[[], Ledger], size: int
) -> list[tuple[str, float, float]]:
    """Replay and verify beside the plain select, interleaved for ROUNDS rounds, each at its
    best round: on a shared machine the others' load then weighs on every one alike."""
    cores = os.cpu_count() or 1
    works: dict[str, Callable[[], object]] = {
        "raw select": raw.select_all,
        "replay with hash recomputation": lambda: replay_with_hashes(ledger),
        "ledger verify (1 process)": lambda: verified(verify(ledger)),
        f"ledger verify ({cores} processes)": lambda: verified(
            verify(ledger, workers=cores, opener=opener)
        ),
        "an approval's commitment to the stream heads (one stream per event)": lambda: map_root(
            ledger.stream_heads(size)
        ),
    }
    best = dict.fromkeys(works, float("inf"))
    for _ in range(ROUNDS):
        for work, run in works.items():
            best[work] = min(best[work], timed(run))
    baseline = rate(size, best.pop("raw select"))
    return [(work, rate(size, seconds), baseline) for work, seconds in best.items()]


def bench(backend: str, total: int, singles: int) -> list[tuple[str, float, float]]:
    results = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        backend_settings(backend, Path(tmp)) as (settings, schema),
    ):
        ledger, _ = init(settings)
        raw = Raw(backend, Path(tmp), schema)

        raw.settle()
        single = timed(lambda: [ledger.append(events(n, 1)) for n in range(singles)])
        raw.settle()
        raw_single = timed_copy(ledger, raw, 0, singles, 1)
        results.append(("single appends", rate(singles, single), rate(singles, raw_single)))

        streamed = range(singles, total, BATCH)
        raw.settle()
        fill = timed(lambda: ledger.append_batches(events(n, BATCH) for n in streamed))
        raw.settle()
        raw_fill = timed_copy(ledger, raw, singles, total, BATCH)
        appended = total - singles
        work = f"batched appends, streamed ({BATCH}/batch)"
        results.append((work, rate(appended, fill), rate(appended, raw_fill)))

        calls = range(total, total + WINDOW, BATCH)
        raw.settle()
        one_by_one = timed(lambda: [ledger.append(events(n, BATCH)) for n in calls])
        raw.settle()
        raw_window = timed_copy(ledger, raw, total, total + WINDOW, BATCH)
        work = f"batched appends, one call each ({BATCH}/batch, last {WINDOW:,})"
        results.append((work, rate(WINDOW, one_by_one), rate(WINDOW, raw_window)))
        total += WINDOW

        probe = open_ledger(settings)  # a reader with connections of its own
        latencies = []
        for n in range(50):
            size = ledger.append(events(total + n * BATCH, BATCH)).size
            committed = time.perf_counter()
            assert probe.checkpoint().size == size
            latencies.append(time.perf_counter() - committed)
        probe.recorder.close()

        size = ledger.size()
        raw.settle()
        results += reads(ledger, raw, partial(open_ledger, settings), size)
        p99 = statistics.quantiles(latencies, n=100)[98] * 1000
        results.append(("checkpoint visible after commit (p99 ms)", p99, float("nan")))
        ledger.recorder.close()
    return results


FLOORS = {
    "ledger verify (2 processes)": VERIFY,
    f"batched appends, one call each ({BATCH}/batch, last {WINDOW:,})": ONE_CALL_APPEND,
}
"""Issue 16's floors (PostgreSQL), by the work they judge."""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--singles", type=int, default=2_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    print(
        f"# Ledger benchmark, {time.strftime('%Y-%m-%d')}, {platform.node()}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {args.events:,} events per backend\n"
    )
    print("| backend | work | ledger events/s | raw baseline events/s | ratio | floor |")
    print("|---|---|---:|---:|---:|---|")
    for backend in args.backends.split(","):
        for work, ours, baseline in bench(backend, args.events, args.singles):
            if work.endswith("(p99 ms)"):
                sealed = "(sealed in the append's own transaction)"
                print(f"| {backend} | {work} | {ours:.2f} ms | {sealed} | | |")
            else:
                floor = FLOORS.get(work) if backend == "postgresql" else None
                print(f"| {backend} | {work} | {beside(ours, baseline, floor)} |")


if __name__ == "__main__":
    main()
