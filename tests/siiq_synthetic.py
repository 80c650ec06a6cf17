"""Synthetic SI-IQ problems from known parameters, seeded here in the tests (never in domain/)."""

from __future__ import annotations

from datetime import date

import numpy as np

from domain.siiq.records import AREAS, Benchmark, Result


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
                family=f"family-{j // 2:03d}",
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
