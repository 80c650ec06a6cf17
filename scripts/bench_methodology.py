"""Methodology throughput on PostgreSQL: ingest of run records and a leaderboard rebuild from
zero, beside the raw insert of the same rows; then the leaderboard over HTTP beside a trivial
endpoint of the same server.

    python scripts/bench_methodology.py [--runs 100000] [--requests 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import FileArtifactStore
from api.services.ingest import ingest
from api.wiring import init
from ledger.ledger import Ledger
from projections.base import fold
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from projections.views.leaderboard import leaderboard_view
from scripts.bench_floors import REBUILD_FOLD, REBUILD_STORED, beside
from scripts.bench_ledger import Raw, backend_settings, rate, timed, timed_copy

ROOT = Path(__file__).resolve().parents[1]
AGENTS, PROJECTS = 8, 500


def write_records(folder: Path, runs: int) -> Path:
    """Run records in the shape a harness writes, naming one shared log and recording (so
    the measure is the ledger's, not the disk's)."""
    (folder / "run.log").write_text("$ make\nok\n")
    (folder / "run.cast").write_text(
        '{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "ok"]\n'
    )
    editions = [{"kind": "edition", "version": "1.3", "drafted": "2026-09-05", "summary": "bench"}]
    lines = [json.dumps(e) for e in editions]
    for n in range(runs):
        found = n % 4
        lines.append(
            json.dumps(
                {
                    "kind": "run",
                    "run_id": f"bench-{n}",
                    "cycle": "2026-09",
                    "edition": "1.3",
                    "project": {
                        "id": f"bench/p{n // AGENTS // 3 % PROJECTS}",
                        "source_type": "repository",
                        "pool": "public",
                    },
                    "agent": {
                        "id": f"agent-{n % AGENTS}",
                        "model": "m",
                        "model_version": "1",
                        "harness": "h",
                        "harness_version": "1",
                    },
                    "attempt": "standard",
                    "started_at": "2026-09-10T10:00:00Z",
                    "finished_at": "2026-09-10T11:00:00Z",
                    "status": "finished",
                    "invalid_reason": None,
                    "report": {
                        "installed": True,
                        "started": n % 5 != 0,
                        "errors_found": found,
                        "errors_fixed": found // 2,
                        "test_depth": ["tier1_real", "tier2_mock", "tier3_none"][n % 3],
                    },
                    "evidence": {"log": "run.log", "cast": "run.cast"},
                }
            )
        )
    path = folder / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


FLOORS = {
    "read-model fold from zero, not stored": REBUILD_FOLD,
    "read-model rebuild from zero, stored": REBUILD_STORED,
}
"""Issue 16's floors, by the rebuild phase they judge."""


def rebuild_phases(ledger: Ledger, events: int) -> list[tuple[str, float]]:
    """The rebuild from zero and its parts: the fold alone (read, decode, apply), the fold
    with the model stored (`argusic rebuild`), and that with the leaderboard computed from it."""
    projection = MethodologyProjection()
    folded = timed(lambda: fold(projection, ledger.events()))
    started = time.perf_counter()
    _, model = ReadModel(ledger, projection).rebuild()
    stored = time.perf_counter() - started
    board = timed(lambda: leaderboard_view(model, events, cycle="2026-09"))
    return [
        ("read-model fold from zero, not stored", folded),
        ("read-model rebuild from zero, stored", stored),
        ("leaderboard rebuild from zero", stored + board),
    ]


def http_latencies(url: str, requests: int) -> list[float]:
    latencies = []
    with httpx.Client(timeout=30) as client:
        client.get(url).raise_for_status()  # warm: the first read folds the state
        for _ in range(requests):
            started = time.perf_counter()
            client.get(url).raise_for_status()
            latencies.append(time.perf_counter() - started)
    return latencies


def serve(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "argusic"), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return server
        except httpx.TransportError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=2_000)
    args = parser.parse_args()
    machine = f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(
        f"# Methodology benchmark, {time.strftime('%Y-%m-%d')}, {machine}, PostgreSQL, "
        f"{args.runs:,} run records\n"
    )
    print("| work | measured | baseline | ratio | floor |")
    print("|---|---:|---:|---:|---|")
    with (
        tempfile.TemporaryDirectory() as tmp,
        backend_settings("postgresql", Path(tmp)) as (settings, schema),
    ):
        folder = Path(tmp)
        records = write_records(folder, args.runs)
        ledger, _ = init(settings)
        raw = Raw("postgresql", folder, schema)
        raw.settle()
        ingested = timed(lambda: ingest(ledger, [records], FileArtifactStore(folder / "artifacts")))
        events = ledger.size()
        raw.settle()
        raw_insert = timed_copy(ledger, raw, 0, events, 1_000)
        print(
            f"| ingest of run records (events/s) | {rate(events, ingested):,.0f} | "
            f"{rate(events, raw_insert):,.0f} raw insert | {raw_insert / ingested:.2f} | |"
        )
        raw.settle()
        for name, seconds in rebuild_phases(ledger, events):
            raw_select = timed(raw.select_all)
            cells = beside(rate(events, seconds), rate(events, raw_select), FLOORS.get(name))
            print(f"| {name} (events/s, beside the raw select) | {cells} |")
        env = {
            **os.environ,
            "ARGUSIC_DATABASE_URL": settings.database_url,
            "ARGUSIC_HOME": str(settings.home),
            "ARGUSIC_LOG_FORMAT": "json",
        }
        port = 8765
        server = serve(env, port)
        try:
            board = http_latencies(
                f"http://127.0.0.1:{port}/leaderboard?cycle=2026-09", args.requests
            )
            health = http_latencies(f"http://127.0.0.1:{port}/healthz", args.requests)
        finally:
            server.terminate()
            server.wait(timeout=30)
        for name, fn in (
            ("requests/s", lambda xs: len(xs) / sum(xs)),
            ("p99 latency (ms)", lambda xs: statistics.quantiles(xs, n=100)[98] * 1000),
        ):
            ours, trivial = fn(board), fn(health)
            ratio = ours / trivial
            cells = f"{ours:,.1f} | {trivial:,.1f} /healthz | {ratio:.2f} |"
            print(f"| leaderboard over HTTP, {name} | {cells} |")
        ledger.close()


if __name__ == "__main__":
    main()
