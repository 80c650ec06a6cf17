"""SI-IQ inputs: results, benchmarks and the reference group, read from their normalised CSV
text (docs/siiq-input.md), selected (section 1, decisions A1 to A3) and laid out as arrays."""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

import msgspec
import numpy as np
from numpy.typing import NDArray

from domain.errors import InvalidInput
from domain.siiq.records import Benchmark, Result
from domain.siiq.transform import transform

N_KINDS = ("exact", "effective", "assumed")
Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


def total(index: Ints, values: Floats, size: int) -> Floats:
    """The sum of `values` per index (numpy's bincount with weights, typed)."""
    return np.asarray(np.bincount(index, values, minlength=size), dtype=np.float64)


class InputError(InvalidInput):
    """A CSV file does not have the columns or values the input format requires."""


def _rows(text: str, required: Sequence[str], what: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(missing)}")
    return list(reader)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return None


def read_benchmarks(text: str) -> list[Benchmark]:
    rows = _rows(
        text,
        ("benchmark", "family", "area", "evaluator", "chance", "ceiling", "n", "n_kind"),
        "benchmarks CSV",
    )
    return [
        Benchmark(
            benchmark=r["benchmark"],
            family=r["family"],
            area=r["area"],
            evaluator=r["evaluator"],
            chance=_number(r["chance"]),
            ceiling=_number(r["ceiling"]),
            n=_number(r["n"]),
            n_kind=r["n_kind"],
        )
        for r in rows
    ]


def read_results(text: str) -> list[Result]:
    rows = _rows(text, ("model", "benchmark", "score", "evaluator", "released"), "results CSV")
    return [
        Result(
            model=r["model"],
            benchmark=r["benchmark"],
            score=_number(r["score"]),
            evaluator=r["evaluator"],
            released=_date(r["released"]),
            config=r.get("config") or "",
            source=r.get("source") or "",
        )
        for r in rows
    ]


def read_reference(text: str) -> list[str]:
    """Decision A3: one slug a line, stripped; blank lines and `#` comments ignored."""
    lines = (line.strip() for line in text.lstrip("\ufeff").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


class Selection(msgspec.Struct, frozen=True, kw_only=True):
    """What the index uses, and what it left out and why (diagnostics)."""

    results: list[Result]
    benchmarks: list[Benchmark]
    ignored_rows: dict[str, int]
    invalid_benchmarks: list[str]


def select(results: Iterable[Result], benchmarks: Iterable[Benchmark]) -> Selection:
    """Section 1 "which score" and decisions A1, A2: per model and benchmark the row with the
    best score (the first on a tie); rows on unknown benchmarks or with a non-finite score
    are ignored; a benchmark with an invalid configuration is excluded."""
    known = {b.benchmark: b for b in benchmarks}
    invalid = sorted(name for name, b in known.items() if b.invalid_configuration())
    ignored: Counter[str] = Counter()
    best: dict[tuple[str, str], Result] = {}
    for result in results:
        if result.benchmark not in known:
            ignored["unknown benchmark"] += 1
        elif not math.isfinite(result.score):
            ignored["score not a finite number"] += 1
        elif result.benchmark in invalid:
            ignored["benchmark with an invalid configuration"] += 1
        else:
            key = (result.model, result.benchmark)
            if key not in best or result.score > best[key].score:
                best[key] = result
    valid = [b for name, b in sorted(known.items()) if name not in invalid]
    return Selection(
        results=sorted(best.values(), key=lambda r: (r.model, r.benchmark)),
        benchmarks=valid,
        ignored_rows=dict(sorted(ignored.items())),
        invalid_benchmarks=invalid,
    )


@dataclass(frozen=True)
class Observations:
    """Results as arrays: one entry per (model, benchmark) result, models and benchmarks in
    code-point order, with the transformed score y and its variance v (section 2)."""

    models: tuple[str, ...]
    benchmarks: tuple[Benchmark, ...]
    m: Ints
    b: Ints
    y: Floats
    v: Floats

    @classmethod
    def build(cls, results: Sequence[Result], benchmarks: Sequence[Benchmark]) -> Observations:
        by_name = {b.benchmark: b for b in benchmarks}
        used = [r for r in results if r.benchmark in by_name]
        models = tuple(sorted({r.model for r in used}))
        # Every benchmark given, results or not: K (benchmarks per area) counts the whole set.
        kept = tuple(by_name[name] for name in sorted(by_name))
        model_index = {name: i for i, name in enumerate(models)}
        bench_index = {b.benchmark: i for i, b in enumerate(kept)}
        m = np.array([model_index[r.model] for r in used], dtype=np.int64)
        b = np.array([bench_index[r.benchmark] for r in used], dtype=np.int64)
        params = np.array([(x.chance, x.ceiling, x.n) for x in kept], dtype=np.float64)
        params = params.reshape(-1, 3)[b]
        scores = np.array([r.score for r in used], dtype=np.float64)
        t = transform(scores, params[:, 0], params[:, 1], params[:, 2])
        return cls(models, kept, m, b, t.y, t.v)

    def subset(self, models: Iterable[str], benchmarks: Iterable[str]) -> Observations:
        """The results of these models on these benchmarks, re-indexed."""
        keep_models = sorted(set(models))
        keep_names = set(benchmarks)
        keep_benchmarks = [b for b in self.benchmarks if b.benchmark in keep_names]
        model_map = np.full(len(self.models), -1)
        position = {name: i for i, name in enumerate(self.models)}
        model_map[[position[x] for x in keep_models]] = np.arange(len(keep_models))
        bench_map = np.full(len(self.benchmarks), -1)
        old = {b.benchmark: i for i, b in enumerate(self.benchmarks)}
        bench_map[[old[b.benchmark] for b in keep_benchmarks]] = np.arange(len(keep_benchmarks))
        rows = (model_map[self.m] >= 0) & (bench_map[self.b] >= 0)
        return Observations(
            tuple(keep_models),
            tuple(keep_benchmarks),
            model_map[self.m][rows],
            bench_map[self.b][rows],
            self.y[rows],
            self.v[rows],
        )

    def rows_by_model(self) -> list[Ints]:
        """For each model, the indexes of its results."""
        order = np.argsort(self.m, kind="stable")
        return np.split(order, np.cumsum(self.results_per_model())[:-1])

    def results_per_model(self) -> Ints:
        return np.bincount(self.m, minlength=len(self.models))

    def results_per_benchmark(self) -> Ints:
        return np.bincount(self.b, minlength=len(self.benchmarks))

    def family_index(self) -> Ints:
        """Per benchmark, the index of its family in code-point order."""
        families = sorted({b.family for b in self.benchmarks})
        return np.array([families.index(b.family) for b in self.benchmarks], dtype=np.int64)

    def family_counts(self) -> Floats:
        """Per result, F_b: the model's results in the family of the result's benchmark."""
        family = self.family_index()[self.b] if len(self.b) else self.b
        key = self.m * (int(family.max(initial=0)) + 1) + family
        return np.asarray(np.bincount(key)[key], dtype=np.float64)

    def area_weights(self) -> Floats:
        """Per benchmark, omega_b = 1/sqrt(K), K the benchmarks of the set in its area (A12)."""
        per_area = Counter(b.area for b in self.benchmarks)
        return np.array(
            [1 / math.sqrt(per_area[b.area]) for b in self.benchmarks], dtype=np.float64
        )
