"""The ledger at scale on PostgreSQL: 10,000,000 events appended in batches, then the table
sizes, a parallel `ledger verify` (of the whole ledger and of its last million events) and a
replay, each read beside the plain select of the same rows. The figures of docs/scale.md.

    python scripts/bench_scale.py [--events 10000000] [--batch 100]

It runs in a database of its own, created on the server of ARGUSIC_TEST_PG_URL and dropped at
the end. About 7 GB of disk, and 6 minutes on the quiet 2-core machine (45 with four other
sessions sharing it).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.wiring import Settings, init, open_ledger
from ledger.ledger import Ledger
from ledger.verify import verify
from scripts.bench_ledger import PG_URL, events, rate, replay_with_hashes, select_all, timed
from scripts.bench_ledger import verified as checked

STEP = 1_000_000
RANGE = 1_000_000
TABLES = ("ledger_events", "ledger_merkle_nodes", "ledger_checkpoints")


@contextmanager
def scratch_database() -> Iterator[str]:
    """A database of its own on the benchmark's server, dropped afterwards."""
    name = f"argusic_scale_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(PG_URL)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as admin:
            drop = sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name))
            admin.execute(drop)


def fill(ledger: Ledger, total: int, batch: int) -> float:
    """Append `total` events in batches as ingest does; print the rate of each million."""
    spent = 0.0
    for start in range(0, total, STEP):
        upto = min(start + STEP, total)
        batches = (events(n, min(batch, upto - n)) for n in range(start, upto, batch))
        seconds = timed(partial(ledger.append_batches, batches))
        spent += seconds
        print(f"appended {upto:,}: {rate(upto - start, seconds):,.0f} events/s", flush=True)
    return spent


def table_sizes(conn: psycopg.Connection[tuple[Any, ...]]) -> list[tuple[str, int, int, int]]:
    """Each ledger table's rows, its bytes (with TOAST) and its indexes' bytes."""
    query = "SELECT count(*), pg_table_size({0}::regclass), pg_indexes_size({0}::regclass) FROM {1}"
    found = []
    for table in TABLES:
        statement = sql.SQL(query).format(sql.Literal(table), sql.Identifier(table))
        count, heap, index = conn.execute(statement).fetchall()[0]
        found.append((table, count, heap, index))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    print(
        f"# Ledger at scale, {time.strftime('%Y-%m-%d %H:%M')}, {platform.node()},"
        f" {os.cpu_count()} cores,"
        f" Python {platform.python_version()}, {args.events:,} events in batches of"
        f" {args.batch}, load average {os.getloadavg()[0]:.1f}\n",
        flush=True,
    )
    with scratch_database() as url, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(url, Path(tmp) / "home", "json")
        ledger, _ = init(settings)
        try:
            measure(ledger, settings, url, args.events, args.batch)
        finally:
            ledger.close()
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


def measure(ledger: Ledger, settings: Settings, url: str, total: int, batch: int) -> None:
    """Fill, then each read beside the plain select; every figure printed once it is known,
    so a run cut short still tells what it got to."""
    appended = fill(ledger, total, batch)
    size = ledger.size()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")
        print("\n| table | rows | table bytes | index bytes | bytes per row |")
        print("|---|---:|---:|---:|---:|")
        for table, count, heap, index in table_sizes(conn):
            print(f"| {table} | {count:,} | {heap:,} | {index:,} | {(heap + index) / count:,.0f} |")
        plain = timed(lambda: select_all(lambda: conn.cursor(binary=True), TABLES[0], "%s"))
    cores, last = os.cpu_count() or 1, min(RANGE, size)
    opener = partial(open_ledger, settings)
    print("\n| work | seconds | events/s | ratio to the plain select |")
    print("|---|---:|---:|---:|")
    print(f"| append, batches of {batch} | {appended:,.1f} | {rate(size, appended):,.0f} | |")
    print(f"| plain select of the events | {plain:,.1f} | {rate(size, plain):,.0f} | 1.00 |")
    reads: list[tuple[str, Callable[[], object], int]] = [
        (
            f"ledger verify, {cores} processes",
            lambda: checked(verify(ledger, workers=cores, opener=opener)),
            size,
        ),
        (
            f"ledger verify of the last {last:,}, {cores} processes",
            lambda: checked(verify(ledger, after=size - last, workers=cores, opener=opener)),
            last,
        ),
        ("replay with hash recomputation", lambda: replay_with_hashes(ledger), size),
        ("replay decoding every event", lambda: sum(1 for _ in ledger.events()), size),
    ]
    for work, run, count in reads:
        seconds = timed(run)
        ratio = rate(count, seconds) / rate(size, plain)
        print(
            f"| {work} | {seconds:,.1f} | {rate(count, seconds):,.0f} | {ratio:.2f} |", flush=True
        )


if __name__ == "__main__":
    main()
