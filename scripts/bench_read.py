"""The public read path beside `/healthz` on the same server (issue 31, deliverable 6), at each
ledger size asked: `wrk` (Debian's, C, one thread) sends public reads (leaderboard, run page,
evidence, inclusion proof, in turn) and `/healthz` on 16 kept-alive loopback connections to
`argusic serve` and to `argusic serve --workers 2`, both over the demo ledger with that many
runs ingested and published, a cycle of 1,000 runs a month (a leaderboard the same size at every
size); each path on each server for some seconds in all, in rounds taken in turn; then the same
reads while another process ingests runs and publishes them, in rounds taken in turn with
`/healthz` rounds during which that process is stopped. Printed side by side with the
targets: reads at >= 0.8 of `/healthz`'s requests/s with a p99 at most 2x its, that ratio flat
(within 10 %) from the smallest size to the largest, the mixed load at >= 0.6, two workers at
>= 1.6x one.

The client is `wrk`, not Python: a Python client (httpx) spent a core of the two on reading the
answers, so the bench measured the client, and two workers could not be told from one
(docs/performance.md, "Public reads").

    python scripts/bench_read.py [--runs 1000 --runs 100000] [--seconds 15] [--connections 16]
        [--backend sqlite|postgresql]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
from psycopg import sql

from api.services.ingest import ingest
from api.wiring import Argusic
from ledger.ledger import Ledger
from scripts.bench_load import demo_ledger, ratio
from tests.api.test_load import Publications, Writer, request
from tests.conftest import PG_URL
from tests.servers import serving

READS = ["leaderboard", "run", "evidence", "proof"]
RUNS_PER_ROUND = 1_000
"""Runs per ingest (and approval) while the ledger is filled: a month's cycle of its own."""
ROSTER = ["demo-agent-a", "demo-agent-b", "demo-agent-c", "demo-agent-d"]
RUNS_PER_SET = 3
"""Section 9: an agent runs each project of its cycle three times."""
RUNS_PER_INGEST = 150
"""Runs per ingest (and approval) while the mixed load runs, as `bench_load.py`'s writer."""
MIXED_SECONDS = 60
PUBLISH_EVERY_SECONDS = 1.0
"""The writer's pace during the mixed load: an ingest and its approval a second, far above any
operator's and the same at every ledger size. Unpaced, the load offered was however fast the
writer was: a writer made faster doubled the approvals, and the reads measured fell (0.57 to
0.06-0.11 of `/healthz` at 1,000 runs)."""
MIXED_HEALTHZ_SECONDS = 3
MIXED_SEEDS = 1_000
"""The mixed rounds' first seed, past the interleaved rounds': their proofs new to the server."""
WARM_UP_SECONDS = 600
START_SECONDS = 900
"""How long a server may take to start: it makes the latest approved position's state first
(13-16 s at 100,000 runs from the model stored there; a fold from the ledger's start, a minute or
more, where none is)."""
WARM_UP_ROUND = 3
ROUNDS = 5
"""Rounds each measurement is taken in, in turn with the others (`interleaved`)."""
WARM_MS = 1_000
"""The slowest answer of a warm server's round: every view already made."""
WARM_ANSWERS = 10
"""Answers per connection in a warm round: wrk times only the answers it received, so a round
in which a fold held every connection to its end looked fast."""
TIMEOUT_SECONDS = 120
"""wrk's own default, 2 s, would count a view made afresh after an approval as a failure."""
PATHS = 50_000
"""Requests listed for wrk, sent in turn (more than it sends in a measurement)."""
WRK_SCRIPT = Path(__file__).with_name("wrk_paths.lua")
TARGETS = {"reads": 0.8, "p99": 2.0, "mixed": 0.6, "workers": 1.6, "flat": 0.1}


class Monthly(Writer):
    """The runs as operations spread them: each round of the fill a cycle of its own (a month),
    the demo's four agents running each project of its pool three times (83 projects for 1,000
    runs), so the leaderboard the clients read is one cycle's, whatever the ledger holds."""

    def open_cycle(self, ledger: Ledger, number: int) -> None:
        month = 2026 * 12 + 10 + number - 1  # the first after the demo's cycles: 2026-11
        cycle = f"{month // 12}-{month % 12 + 1:02d}"
        pool = [
            self.pool[0]
            | {"id": f"load/p{n:03d}", "repo": f"https://example.invalid/load/p{n:03d}"}
            for n in range(self.runs // (len(ROSTER) * RUNS_PER_SET))
        ]
        record = {"kind": "cycle", "id": cycle, "opens": f"{cycle}-01", "agents": ROSTER}
        path = self.folder / f"cycle-{cycle}.jsonl"
        path.write_text(json.dumps(record | {"projects": pool}) + "\n")
        ingest(ledger, [path], Argusic(self.settings, ledger).store)
        self.pool, self.roster, self.publications.cycle = pool, ROSTER, cycle


def paths(publications: Publications, kinds: list[str], seed: int) -> list[str]:
    """`PATHS` requests of `kinds` in turn, as of the latest publication: its leaderboard, its
    runs' pages and evidence; inclusion proofs of random positions in trees of random sizes up
    to it, so that no proof is asked twice and each is made afresh, whatever the ledger's size."""
    rng = random.Random(seed)
    known, runs = publications.latest()
    listed = []
    for n in range(PATHS):
        kind = kinds[n % len(kinds)]
        if kind == "proof":
            size = rng.randint(1, known)
            listed.append(f"/ledger/proof/inclusion?position={rng.randint(1, size)}&size={size}")
        else:
            listed.append(request(kind, known, runs, rng, publications.cycle))
    return listed


Latencies = list[tuple[int, int]]
"""What wrk recorded: each latency in microseconds, and how many answers took it."""


class Round(NamedTuple):
    """One wrk run: the answers received, over how many seconds, and their latencies."""

    requests: int
    seconds: float
    latencies: Latencies


def wrk(origin: str, sent: list[str], seconds: int, connections: int) -> Round:
    """`sent` in turn from wrk's one thread on `connections` kept-alive connections for
    `seconds`. The bench stops on any answer that is not a 200 and on any connection that
    failed."""
    with tempfile.NamedTemporaryFile("w", suffix=".paths") as listed:
        listed.write("\n".join(sent) + "\n")
        listed.flush()
        done = subprocess.run(
            [
                *("wrk", "--threads", "1", "--connections", str(connections)),
                *("--duration", f"{seconds}s", "--timeout", f"{TIMEOUT_SECONDS}s"),
                *("--script", str(WRK_SCRIPT), "--header", "Accept-Encoding: gzip", origin),
            ],
            env={**os.environ, "WRK_PATHS": listed.name},
            capture_output=True,
            text=True,
            check=True,
        )
    measured = json.loads(done.stdout.splitlines()[-1])
    if measured["not_2xx_3xx"] or measured["transport_errors"]:
        failed = {k: v for k, v in measured.items() if k != "latencies"}
        sys.exit(f"wrk: answers not 200 or connections failed: {failed}")
    latencies = [(value, count) for value, count in measured["latencies"]]
    return Round(measured["requests"], measured["seconds"], latencies)


def percentile(latencies: Latencies, share: float) -> float:
    """The latency (ms) within which `share` of the answers came."""
    ordered = sorted(latencies)
    wanted = share * sum(count for _, count in ordered)
    seen = 0
    for value, count in ordered:
        seen += count
        if seen >= wanted:
            return value / 1000
    return 0.0


def summary(rounds: list[Round]) -> dict[str, float]:
    """Rounds of one path on one server as one measurement: requests, requests/s, median,
    99th percentile and slowest latencies over them all."""
    requests = sum(r.requests for r in rounds)
    latencies = [recorded for r in rounds for recorded in r.latencies]
    return {
        "requests": requests,
        "requests_per_second": round(requests / sum(r.seconds for r in rounds), 1),
        "p50_ms": percentile(latencies, 0.5),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": max((value for value, _ in latencies), default=0) / 1000,
    }


def warm_up(origin: str, publications: Publications, connections: int) -> None:
    """Rounds of reads and `/healthz` on fresh connections until one round answers every
    connection with no slow answer: a cold worker folds the stored read model first (20 s and
    more at 100,000 runs), and with `--workers` the kernel, not the client, picks the worker a
    connection reaches."""
    deadline = time.perf_counter() + WARM_UP_SECONDS
    seed = 0
    while time.perf_counter() < deadline:
        seed -= 1  # the measured rounds' seeds are positive: their proofs not made here
        asked = paths(publications, [*READS, "healthz"], seed)
        answered = summary([wrk(origin, asked, WARM_UP_ROUND, connections)])
        if answered["requests"] >= WARM_ANSWERS * connections and answered["max_ms"] < WARM_MS:
            return
    sys.exit(f"the server was still making answers after {WARM_UP_SECONDS} s of warm-up")


def interleaved(
    servers: dict[str, str], publications: Publications, seconds: int, connections: int
) -> dict[str, dict[str, dict[str, float]]]:
    """For each server (name: origin), `/healthz` and the public reads, each for `seconds` in
    all, in `ROUNDS` rounds taken in turn: on a shared VM whose speed drifts by a fifth within
    a minute, figures measured one after the other compared the drift, not the paths."""
    for origin in servers.values():
        warm_up(origin, publications, connections)
    measured: dict[tuple[str, str], list[Round]] = {}
    seed = 0
    for _ in range(ROUNDS):
        for name, origin in servers.items():
            seed += 1  # each round's proofs new to the server
            for path, sent in (
                ("healthz", ["/healthz"]),
                ("reads", paths(publications, READS, seed)),
            ):
                answered = wrk(origin, sent, max(1, seconds // ROUNDS), connections)
                measured.setdefault((name, path), []).append(answered)
    return {
        name: {path: summary(measured[name, path]) for path in ("healthz", "reads")}
        for name in servers
    }


def mixed_load(origin: str, writer: Monthly, connections: int) -> tuple[list[Round], list[Round]]:
    """`/healthz` alone and the public reads while `writer` ingests and publishes, in `ROUNDS`
    rounds taken in turn, `MIXED_SECONDS` of reads in all: the writer is stopped (SIGSTOP)
    while `/healthz` is measured, so that both are measured in the same minute and `/healthz`
    on a server that has the cores to itself, as in `interleaved`."""
    healthz: list[Round] = []
    reads: list[Round] = []
    with writer.running(rounds=1_000, every=PUBLISH_EVERY_SECONDS) as child:
        assert child.pid is not None
        for n in range(ROUNDS):
            os.kill(child.pid, signal.SIGSTOP)
            try:
                healthz.append(wrk(origin, ["/healthz"], MIXED_HEALTHZ_SECONDS, connections))
            finally:
                os.kill(child.pid, signal.SIGCONT)
            sent = paths(writer.publications, READS, seed=MIXED_SEEDS + n)
            reads.append(wrk(origin, sent, MIXED_SECONDS // ROUNDS, connections))
    return healthz, reads


def vacuumed(url: str) -> None:
    """The filled ledger's tables vacuumed and analysed, as autovacuum leaves a database that
    has been in use: else it does so during the measurements, on one of the two cores."""
    schema = parse_qs(urlsplit(url).query).get("schema")
    if schema is None:  # SQLite
        return
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", schema
        ).fetchall()
        for (table,) in tables:
            conn.execute(sql.SQL("VACUUM ANALYZE {}").format(sql.Identifier(schema[0], table)))


def ratio_to_healthz(measured: dict[str, dict[str, float]], name: str) -> dict[str, float]:
    return ratio(measured[name], measured["healthz"])


def measure(backend: str, runs: int, seconds: int, connections: int) -> dict[str, object]:
    with demo_ledger(backend) as (settings, ledger, folder, env):
        writer = Monthly(settings, folder / "records", RUNS_PER_ROUND)
        filled = time.perf_counter()
        for number in range(1, max(1, runs // RUNS_PER_ROUND) + 1):
            writer.open_cycle(ledger, number)
            writer.published(*writer.round(ledger, number))
        filled = time.perf_counter() - filled
        size = ledger.size()
        ledger.close()
        vacuumed(env["ARGUSIC_DATABASE_URL"])
        writer.runs = RUNS_PER_INGEST
        pubs = writer.publications
        with ExitStack() as servers:
            started = time.perf_counter()
            single = servers.enter_context(serving(env, start_seconds=START_SECONDS))
            start_seconds = round(time.perf_counter() - started, 1)
            double = servers.enter_context(
                serving(env, None, "--workers", "2", start_seconds=START_SECONDS)
            )
            measured = interleaved(
                {"one_worker": single, "two_workers": double}, pubs, seconds, connections
            )
            healthz_between, mixed = mixed_load(single, writer, connections)
        one, two = measured["one_worker"], measured["two_workers"]
        one["mixed"], one["healthz_between_mixed"] = summary(mixed), summary(healthz_between)
    return {
        "backend": backend,
        "runs": runs,
        "events": size,
        "fill_seconds": round(filled, 1),
        "server_start_seconds": start_seconds,
        "one_worker": one,
        "two_workers": two,
        "reads_to_healthz": ratio_to_healthz(one, "reads"),
        "mixed_to_healthz": ratio(one["mixed"], one["healthz_between_mixed"]),
        "two_workers_to_one": {
            name: round(two[name]["requests_per_second"] / one[name]["requests_per_second"], 2)
            for name in ("reads", "healthz")
        },
        "ingests_published_during_the_mixed_load": len(pubs.positions) - runs // RUNS_PER_ROUND,
    }


def flatness(results: list[dict[str, object]]) -> float | None:
    """How far the reads' ratio to `/healthz` at the largest size is from the smallest's."""
    if len(results) < 2:
        return None
    first = float(results[0]["reads_to_healthz"]["requests_per_second"])  # type: ignore[index]
    last = float(results[-1]["reads_to_healthz"]["requests_per_second"])  # type: ignore[index]
    return round(abs(last - first) / first, 3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, action="append")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    args = parser.parse_args()
    sizes = sorted(args.runs or [1_000, 100_000])
    results = [measure(args.backend, runs, args.seconds, args.connections) for runs in sizes]
    print(
        json.dumps(
            {
                "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                "load_average": os.getloadavg(),
                "client": f"wrk, 1 thread, {args.connections} connections, {args.seconds} s",
                "targets": TARGETS,
                "results": results,
                "reads_ratio_change_smallest_to_largest": flatness(results),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
