"""Issue 16's speed targets, decided (issue 31): no hand-written native extension. Native code
comes only from well-kept packages (msgspec, PyNaCl, lz4 and RE2's bindings, as now); the ratios
measured on 2026-12-03 on the quiet 2-core VM become floors, which `make bench` prints beside
each figure, each judged `pass` or `BELOW` (docs/performance.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Floor:
    """The least a ratio may be (or, `at_most`, the most a figure may be)."""

    bound: float
    at_most: bool = False
    unit: str = ""

    def judged(self, value: float) -> str:
        """`≥ 0.45: pass`, `≤ 0.2 s: BELOW`: the floor and how `value` stands against it."""
        met = value <= self.bound if self.at_most else value >= self.bound
        sign = "≤" if self.at_most else "≥"
        return f"{sign} {self.bound:g}{self.unit}: {'pass' if met else 'BELOW'}"


VERIFY = Floor(0.45)
"""`ledger verify` with 2 processes, of the plain select (PostgreSQL, 1,000,000 events)."""
ONE_CALL_APPEND = Floor(0.6)
"""One `append` call per batch of 100, of the raw insert of the same rows (PostgreSQL)."""
REBUILD_STORED = Floor(0.18)
"""The read-model rebuild from zero with the model stored, of the raw select (100,000 runs)."""
REBUILD_FOLD = Floor(0.29)
"""The read-model fold from zero alone, of the raw select (100,000 runs)."""
EVIDENCE = Floor(0.22)
"""The evidence derivation (the served copy), of RE2's single pass with the same patterns."""
CALIBRATION = Floor(0.2, at_most=True, unit=" s")
"""The 400 x 60 SI-IQ calibration with its kappa folds, on one core."""


def beside(figure: float, baseline: float, floor: Floor | None) -> str:
    """The table cells of a figure measured beside its baseline: figure, baseline, their ratio,
    and the ratio judged against its floor (empty where the figure has none)."""
    ratio = figure / baseline
    return f"{figure:,.0f} | {baseline:,.0f} | {ratio:.2f} | {verdict(floor, ratio)}"


def verdict(floor: Floor | None, value: float) -> str:
    """`value` judged against `floor`; empty where there is none."""
    return "" if floor is None else floor.judged(value)
