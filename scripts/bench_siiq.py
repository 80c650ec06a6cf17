"""SI-IQ speed: a calibration with its kappa folds on a synthetic 400 models x 60 benchmarks
(about 40% of cells present), and scoring 10,000 models with frozen parameters.

    python scripts/bench_siiq.py
"""

from __future__ import annotations

import cProfile
import os
import platform
import pstats
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The target is for one core: keep BLAS to one thread (before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from domain.siiq.data import Observations
from domain.siiq.index import build_index, run_calibration
from domain.siiq.records import Result
from tests.siiq_synthetic import Problem

TARGET_CALIBRATION, TARGET_SCORING = 10.0, 1.0


def numpy_share(profile: pstats.Stats) -> float:
    """The share of the time spent inside numpy's (and scipy's) compiled functions."""
    stats = profile.stats  # type: ignore[attr-defined]
    total = sum(tottime for _, _, tottime, _, _ in stats.values())
    # numpy's Python wrappers call their compiled kernels without a profiled frame, so a
    # wrapper's own time is kernel time.
    inside = sum(
        tottime
        for (file, _, name), (_, _, tottime, _, _) in stats.items()
        if "/numpy/" in file or "/scipy/" in file or (file == "~" and "numpy" in name)
    )
    return inside / total if total else 0.0


def main() -> None:
    problem = Problem(models=400, benchmarks=60, present=0.4, seed=2026, reference=80)
    obs = Observations.build(problem.results, problem.benchmarks)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    summary = run_calibration(obs, problem.benchmarks, set(), problem.reference)
    profiler.disable()
    calibration = time.perf_counter() - started
    share = numpy_share(pstats.Stats(profiler))
    newcomers = [
        Result(
            model=f"new-{i:05d}",
            benchmark=b.benchmark,
            score=0.2 + 0.6 * ((i * 7 + j) % 10) / 10,
            evaluator="",
            released=date(2025, 6, 1),
        )
        for i in range(10_000)
        for j, b in enumerate(problem.benchmarks[i % 40 : i % 40 + 12])
    ]
    started = time.perf_counter()
    document = build_index(newcomers, summary)
    scoring = time.perf_counter() - started
    machine = f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"# SI-IQ benchmark, {time.strftime('%Y-%m-%d')}, {machine}\n")
    print("| work | seconds | target | |")
    print("|---|---:|---:|---|")
    kept = sum(b.kept for b in summary.benchmarks)
    work = (
        f"calibration with kappa folds, 400 x 60 ({len(obs.m):,} results; {kept} benchmarks "
        f"kept, kappa {summary.kappa:.3f}); {share:.0%} of it in numpy kernels"
    )
    print(row(work, calibration, TARGET_CALIBRATION))
    scored, rows = len(document.models), len(newcomers)
    work = f"scoring {scored:,} models with frozen parameters ({rows:,} results)"
    print(row(work, scoring, TARGET_SCORING))


def row(work: str, seconds: float, target: float) -> str:
    return f"| {work} | {seconds:.2f} | {target:g} | {'met' if seconds < target else 'NOT met'} |"


if __name__ == "__main__":
    main()
