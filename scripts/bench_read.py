"""The public read path beside `/healthz` on the same server (issue 31, deliverable 6), at each
ledger size asked: loopback clients send a fixed number of public reads (leaderboard, run page,
evidence, inclusion proof) and as many `/healthz` requests, in turn, to `argusic serve` over the
demo ledger with that many runs ingested and published, a cycle of 1,000 runs a month (a
leaderboard the same size at every size); then the same reads while another
process ingests runs and publishes them; then the reads and `/healthz` again against `argusic
serve --workers 2`. Printed side by side with the targets: reads at >= 0.8 of `/healthz`'s
requests/s with a p99 at most 2x its, that ratio flat (within 10 %) from the smallest size to
the largest, the mixed load at >= 0.6, two workers at >= 1.6x one.

    python scripts/bench_read.py [--runs 1000 --runs 100000] [--requests 4000] [--clients 16]
        [--backend sqlite|postgresql]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.services.ingest import ingest
from api.wiring import Argusic
from ledger.ledger import Ledger
from scripts.bench_load import demo_ledger, ratio
from tests.api.test_load import Publications, Writer, mixed_load, summary
from tests.servers import serving

READS = ["leaderboard", "run", "evidence", "proof"]
RUNS_PER_ROUND = 1_000
"""Runs per ingest (and approval) while the ledger is filled: a month's cycle of its own."""
ROSTER = ["demo-agent-a", "demo-agent-b", "demo-agent-c", "demo-agent-d"]
RUNS_PER_SET = 3
"""Section 9: an agent runs each project of its cycle three times."""
RUNS_PER_INGEST = 150
"""Runs per ingest (and approval) while the mixed load runs, as `bench_load.py`'s writer."""
SECONDS = 60
WARM_UP_SECONDS = 600
WARM_SECONDS = 1.0
"""The slowest answer of a warm server's round: every answer already made."""
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


def warm_up(origin: str, publications: Publications, clients: int) -> None:
    """Rounds of reads on fresh connections until one round has no slow answer: a cold worker
    folds the stored read model first (20 s and more at 100,000 runs), and with `--workers`
    the kernel, not the client, picks the worker a connection reaches."""
    deadline = time.perf_counter() + WARM_UP_SECONDS
    while time.perf_counter() < deadline:
        answers = mixed_load(origin, publications, 400, clients, kinds=READS, seconds=600)
        if max(a.seconds for a in answers) < WARM_SECONDS:
            return
    sys.exit(f"the server was still making answers after {WARM_UP_SECONDS} s of warm-up")


def side_by_side(
    origin: str, publications: Publications, requests: int, clients: int
) -> dict[str, object]:
    """`/healthz`, then the public reads, as many requests each from the same clients."""
    warm_up(origin, publications, clients)
    measured = {}
    for name, kinds in (("healthz", ["healthz"]), ("reads", READS)):
        started = time.perf_counter()
        answers = mixed_load(origin, publications, requests, clients, kinds=kinds)
        failed = [a for a in answers if a.status != 200]
        if failed:
            sys.exit(
                f"{len(failed)} failed answers, the first: {failed[0].path} {failed[0].status}"
            )
        measured[name] = summary(answers, time.perf_counter() - started)
    return measured


def ratio_to_healthz(measured: dict[str, dict[str, float]], name: str) -> dict[str, float]:
    return ratio(measured[name], measured["healthz"])


def measure(backend: str, runs: int, requests: int, clients: int) -> dict[str, object]:
    with demo_ledger(backend) as (settings, ledger, folder, env):
        writer = Monthly(settings, folder / "records", RUNS_PER_ROUND)
        filled = time.perf_counter()
        for number in range(1, max(1, runs // RUNS_PER_ROUND) + 1):
            writer.open_cycle(ledger, number)
            writer.published(*writer.round(ledger, number))
        filled = time.perf_counter() - filled
        size = ledger.size()
        ledger.close()
        writer.runs = RUNS_PER_INGEST
        pubs = writer.publications
        with serving(env) as origin:
            one = side_by_side(origin, pubs, requests, clients)
            with writer.running(rounds=1_000):
                started = time.perf_counter()
                answers = mixed_load(origin, pubs, requests, clients, kinds=READS, seconds=SECONDS)
                one["mixed"] = summary(answers, time.perf_counter() - started)
        with serving(env, None, "--workers", "2") as origin:
            two = side_by_side(origin, pubs, requests, clients)
    return {
        "backend": backend,
        "runs": runs,
        "events": size,
        "fill_seconds": round(filled, 1),
        "one_worker": one,
        "two_workers": two,
        "reads_to_healthz": ratio_to_healthz(one, "reads"),
        "mixed_to_healthz": ratio_to_healthz(one, "mixed"),
        "two_workers_to_one": round(
            two["reads"]["requests_per_second"] / one["reads"]["requests_per_second"], 2
        ),
        "ingests_published_during_the_mixed_load": len(pubs.positions) - runs // RUNS_PER_ROUND,
    }


def flatness(results: list[dict[str, object]]) -> float | None:
    """How far the reads' ratio to `/healthz` at the largest size is from the smallest's."""
    if len(results) < 2:
        return None
    first = results[0]["reads_to_healthz"]["requests_per_second"]  # type: ignore[index]
    last = results[-1]["reads_to_healthz"]["requests_per_second"]  # type: ignore[index]
    return round(abs(last - first) / first, 3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, action="append")
    parser.add_argument("--requests", type=int, default=4_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    args = parser.parse_args()
    sizes = sorted(args.runs or [1_000, 100_000])
    results = [measure(args.backend, runs, args.requests, args.clients) for runs in sizes]
    print(
        json.dumps(
            {
                "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                "load_average": os.getloadavg(),
                "clients": args.clients,
                "targets": TARGETS,
                "results": results,
                "reads_ratio_change_smallest_to_largest": flatness(results),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
