"""Runner overhead (issue 12): one run from scheduling to its sandbox removed, with a no-op
agent (`true`) on the local engine and keys at the stand-in, against `docker run --rm` of the
same image in the same process; and runs per minute with 4 workers on this machine.

    python scripts/bench_runner.py [--runs 10] [--throughput-runs 24]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.docker_sandbox import DockerSandboxes
from adapters.keys_stand_in import KeyStandIn
from adapters.sandbox_images import BASELINE_IMAGE, build_images
from api.services.worker import run_worker
from api.wiring import Settings, init
from tests.runner_fixtures import KEYS_TOKEN, Rig


def docker_run_rm(runs: int) -> float:
    """Seconds per `docker run --rm` of the same image with the same limits, no network."""
    began = time.perf_counter()
    for _ in range(runs):
        subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "--init",
                "--network",
                "none",
                "--memory",
                "256m",
                "--pids-limit",
                "256",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                BASELINE_IMAGE,
                "true",
            ],
            check=True,
            capture_output=True,
        )
    return (time.perf_counter() - began) / runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--throughput-runs", type=int, default=24)
    args = parser.parse_args()
    build_images(DockerSandboxes(timeout=300))
    stand_in = KeyStandIn(KEYS_TOKEN).start()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        settings = Settings(f"sqlite:///{folder}/bench.db", folder / "home", "json")
        ledger, _ = init(settings)
        rig = Rig(settings, ledger, stand_in, folder)
        rig.runner.poll_seconds = 0.05
        docker_run_rm(2)  # warm up
        baseline = docker_run_rm(args.runs)
        began = time.perf_counter()
        for n in range(args.runs):
            rig.schedule("installs-and-runs", f"one-{n}", command=["true"])
            run_worker(rig.runner, "bench", 1, once=True)
        ours = (time.perf_counter() - began) / args.runs
        for n in range(args.throughput_runs):
            rig.schedule("installs-and-runs", f"many-{n}", command=["true"])
        began = time.perf_counter()
        workers = [
            threading.Thread(
                target=run_worker, args=(rig.runner, f"bench-{n}", 1), kwargs={"once": True}
            )
            for n in range(4)
        ]  # four workers claiming through the ledger, one run at a time each
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        per_minute = args.throughput_runs / (time.perf_counter() - began) * 60
        ledger.close()
    stand_in.stop()
    print(
        json.dumps(
            {
                "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                "docker_run_rm_seconds": round(baseline, 3),
                "runner_seconds_per_run": round(ours, 3),
                "overhead_ratio": round(ours / baseline, 2),
                "runs_per_minute_4_workers": round(per_minute, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
