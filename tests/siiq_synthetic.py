"""Synthetic SI-IQ problems from known parameters, seeded here in the tests (never in domain/)."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import numpy as np

from domain.siiq.data import Floats, Observations
from domain.siiq.records import AREAS, Benchmark, Result
from domain.siiq.scores import Parameters


class Problem:
    def __init__(
        self, models: int, benchmarks: int, present: float, seed: int, reference: int = 60
    ):
        rng = np.random.default_rng(seed)
        self.theta = rng.normal(size=models)
        self.alpha = rng.uniform(0.6, 1.6, benchmarks)
        self.beta = rng.normal(0, 0.8, benchmarks)
        self.sigma2 = rng.uniform(0.05, 0.2, benchmarks)
        self.slugs = [f"model-{i:04d}" for i in range(models)]
        self.reference = self.slugs[:reference]
        self.benchmarks = [
            Benchmark(
                benchmark=f"bench-{j:03d}",
                family=f"family-{j // 10}-{j % 5}",
                area=AREAS[j % 5],
                evaluator=f"evaluator-{j % 3}",
                chance=0.0,
                ceiling=1.0,
                n=2000.0,
                n_kind="exact",
            )
            for j in range(benchmarks)
        ]
        present_cells = rng.random((models, benchmarks)) < present
        present_cells[:reference] |= (
            rng.random((reference, benchmarks)) < 0.9
        )  # references cover well
        self.results = []
        for i, j in zip(*np.nonzero(present_cells), strict=True):
            y = (
                self.alpha[j] * self.theta[i]
                + self.beta[j]
                + rng.normal() * np.sqrt(self.sigma2[j])
            )
            self.results.append(
                Result(
                    model=self.slugs[i],
                    benchmark=self.benchmarks[j].benchmark,
                    score=float(1 / (1 + np.exp(-y))),
                    evaluator="",
                    released=date(2025, 6, 1 + i % 20),
                )
            )


def write_inputs(
    problem: Problem, folder: Path, reference: list[str] | None = None
) -> dict[str, Path]:
    """The problem as the three normalised input files."""
    return write_files(folder, problem.results, problem.benchmarks, reference or problem.reference)


def write_files(
    folder: Path, results: list[Result], benchmarks: list[Benchmark], reference: list[str]
) -> dict[str, Path]:
    """Results, benchmarks and a reference group as `siiq calibrate`'s three input files."""
    paths = {
        "results": folder / "results.csv",
        "benchmarks": folder / "benchmarks.csv",
        "reference": folder / "reference.txt",
    }
    with paths["results"].open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(
            ["model", "benchmark", "score", "evaluator", "released", "config", "source"]
        )
        writer.writerows(
            [r.model, r.benchmark, repr(r.score), r.evaluator, r.released, r.config, r.source]
            for r in results
        )
    with paths["benchmarks"].open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(
            ["benchmark", "family", "area", "evaluator", "chance", "ceiling", "n", "n_kind"]
        )
        writer.writerows(
            [b.benchmark, b.family, b.area, b.evaluator, b.chance, b.ceiling, b.n, b.n_kind]
            for b in benchmarks
        )
    paths["reference"].write_text("\n".join(reference) + "\n")
    return paths


def jacobian_at(
    cells: np.ndarray, theta: Floats, alpha: Floats
) -> tuple[Observations, Parameters, Floats]:
    """A rank-check problem: a result in every true cell of `cells` (models x benchmarks), the
    Jacobian evaluated at `theta` and `alpha` (beta, sigma^2, y and v play no part in it)."""
    models, benches = cells.shape
    m, b = np.nonzero(cells)
    benchmarks = tuple(
        Benchmark(
            benchmark=f"bench-{j:03d}",
            family=f"family-{j}",
            area=AREAS[j % 5],
            evaluator="e",
            chance=0.0,
            ceiling=1.0,
            n=100.0,
            n_kind="exact",
        )
        for j in range(benches)
    )
    slugs = tuple(f"model-{i:04d}" for i in range(models))
    zeros = np.zeros(len(m))
    obs = Observations(slugs, benchmarks, m.astype(np.int64), b.astype(np.int64), zeros, zeros)
    return obs, Parameters(alpha, np.zeros(benches), np.full(benches, 0.1)), theta


def linked_groups(
    rng: np.random.Generator, shared: int, gap: float = 1.0
) -> tuple[Observations, Parameters, Floats]:
    """Two groups of 12 models x 5 benchmarks each, linked only by `shared` models that have a
    result on all 10 benchmarks. One shared model lets the second group stretch about it (one
    null direction more than shift and stretch); none leaves the groups apart (two more); the
    second of two shared models stands `gap` above the first in theta (a tiny gap nearly
    lets the second group stretch)."""
    cells = np.zeros((24 + shared, 10), dtype=bool)
    cells[:12, :5] = cells[12:24, 5:] = cells[24:] = True
    theta = rng.normal(size=24 + shared)
    if shared == 2:
        theta[25] = theta[24] + gap
    return jacobian_at(cells, theta, rng.uniform(0.5, 1.5, 10))
