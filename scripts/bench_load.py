"""The load of `tests/api/test_load.py`, larger, on SQLite and PostgreSQL: loopback clients send
a fixed number of leaderboard, run, evidence, proof and SI-IQ status requests (for at most 60 s) to
`argusic serve` over the demo ledger while another process ingests runs and publishes them;
against the same clients asking the same server for `/healthz` as many times, in the same run.
Every answer is checked as the test checks it; the bench stops on the first that fails.

    python scripts/bench_load.py [--requests 8000] [--clients 16] [--backend sqlite|postgresql]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.wiring import Settings, init
from ledger.ledger import Ledger
from tests.api.test_load import Writer, inconsistencies, mixed_load, summary
from tests.conftest import PG_URL, load_bundled_demo
from tests.servers import serving

RUNS_PER_INGEST = 150
SECONDS = 60


@contextmanager
def database(backend: str, folder: Path) -> Iterator[str]:
    """A fresh ledger's URL: a SQLite file, or a PostgreSQL schema dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{folder}/ledger.db"
        return
    schema = f"bench_load_{uuid.uuid4().hex[:12]}"
    try:
        yield f"{PG_URL}?schema={schema}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


class DemoLedger(NamedTuple):
    settings: Settings
    ledger: Ledger
    folder: Path
    env: dict[str, str]
    """The environment of an `argusic serve` over it."""


@contextmanager
def demo_ledger(backend: str) -> Iterator[DemoLedger]:
    """The bundled demo in a fresh ledger (`database`) and home, for a server over it."""
    with tempfile.TemporaryDirectory() as name, database(backend, Path(name)) as url:
        folder = Path(name)
        settings = Settings(url, folder / "home", "json")
        ledger, _ = init(settings)
        load_bundled_demo(settings, ledger)
        env = {
            **os.environ,
            "ARGUSIC_DATABASE_URL": url,
            "ARGUSIC_HOME": str(settings.home),
            "ARGUSIC_LOG_FORMAT": "json",
        }
        yield DemoLedger(settings, ledger, folder, env)


def ratio(work: dict[str, float], baseline: dict[str, float]) -> dict[str, float]:
    """`work`'s requests/s and p99 beside `baseline`'s (`summary`)."""
    return {
        "requests_per_second": round(
            work["requests_per_second"] / baseline["requests_per_second"], 3
        ),
        "p99": round(work["p99_ms"] / baseline["p99_ms"], 2),
    }


def measure(backend: str, requests: int, clients: int) -> dict[str, object]:
    with demo_ledger(backend) as (settings, ledger, folder, env):
        writer = Writer(settings, folder / "records", RUNS_PER_INGEST)
        writer.published(*writer.round(ledger, 1))
        ledger.close()
        with serving(env) as origin:
            pubs = writer.publications
            mixed_load(origin, pubs, 400, clients)  # warm up: every view computed once
            started = time.perf_counter()
            healthz = mixed_load(origin, pubs, requests, clients, kinds=["healthz"])
            baseline = summary(healthz, time.perf_counter() - started)
            with writer.running(rounds=1_000):
                started = time.perf_counter()
                answers = mixed_load(origin, pubs, requests, clients, seconds=SECONDS)
                elapsed = time.perf_counter() - started
            problems = inconsistencies(answers, pubs, origin)
    if problems:
        sys.exit(f"{len(problems)} inconsistent answers, the first: {problems[:10]}")
    mixed = summary(answers, elapsed)
    by_kind = {
        kind: {k: v for k, v in summary(of_kind, elapsed).items() if k.endswith("_ms")}
        for kind in sorted({a.kind for a in answers})
        if (of_kind := [a for a in answers if a.kind == kind])
    }
    return {
        "backend": backend,
        "mixed": mixed,
        "by_kind": by_kind,
        "healthz": baseline,
        "mixed_to_healthz": ratio(mixed, baseline),
        "ingests_published_during_the_load": len(pubs.positions) - 1,
        "runs_per_ingest": RUNS_PER_INGEST,
        "errors": 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=8_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], action="append")
    args = parser.parse_args()
    results = [
        measure(b, args.requests, args.clients) for b in args.backend or ["sqlite", "postgresql"]
    ]
    print(
        json.dumps(
            {
                "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                "load_average": os.getloadavg(),
                "clients": args.clients,
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
