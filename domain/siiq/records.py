"""The SI-IQ values the ledger records and the index publishes: msgspec Structs only."""

from __future__ import annotations

import math
from datetime import date

import msgspec

AREAS = ("knowledge", "math", "reasoning", "coding", "agents")


class Benchmark(msgspec.Struct, frozen=True, kw_only=True):
    benchmark: str
    family: str
    area: str
    evaluator: str
    chance: float
    ceiling: float
    n: float
    n_kind: str

    def invalid_configuration(self) -> bool:
        """Decision A2: ceiling <= chance, n <= 0, a non-finite number or an unknown area."""
        numbers = (self.chance, self.ceiling, self.n)
        return (
            not all(map(math.isfinite, numbers))
            or self.ceiling <= self.chance
            or self.n <= 0
            or self.area not in AREAS
        )


class Result(msgspec.Struct, frozen=True, kw_only=True):
    model: str
    benchmark: str
    score: float
    evaluator: str
    released: date | None
    config: str = ""
    source: str = ""


class BenchmarkParameters(msgspec.Struct, frozen=True, kw_only=True):
    """A benchmark as calibrated: its parameters when kept, the reason when left out."""

    benchmark: str
    family: str
    area: str
    evaluator: str
    chance: float | None
    ceiling: float | None
    n: float | None
    n_kind: str
    kept: bool
    reason: str | None = None
    alpha: float | None = None
    beta: float | None = None
    sigma2: float | None = None
    models_in_fit: int | None = None
    """Section 1's "modelos en el ajuste": the fitted models whose results on it set its
    parameters (none when not kept, and in calibrations recorded before it was counted)."""


class CalibrationSummary(msgspec.Struct, frozen=True, kw_only=True):
    """What `argusic siiq calibrate --json` prints and the index carries."""

    accepted: bool
    reason: str | None
    version: str
    shift: float | None
    scale: float | None
    kappa: float | None
    folds: int
    pairs: int
    reference: list[str]
    fitted_models: list[str]
    benchmarks: list[BenchmarkParameters]
