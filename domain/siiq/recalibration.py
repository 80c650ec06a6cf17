"""The checks a recalibration must pass against the index it would replace (SI-IQ section 3)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from domain.siiq.index import IndexDocument
from domain.siiq.records import BenchmarkParameters

JOINABLE = frozenset(
    {"fewer than 10 models with at least 4 results", "fewer than 3 reference-group models"}
)
RANKED_CHANGE, SPEARMAN_FLOOR, MEDIAN_MOVE = 0.10, 0.95, 3.0


def recalibration_problem(
    published: IndexDocument, proposed: IndexDocument, major: bool = False
) -> str | None:
    """Section 3: a recalibration is rejected if a benchmark would leave the index, if a
    benchmark would join that was not left out only for too few models, if the number of
    ranked models would change by more than 10%, or if scores would move more than expected
    (Spearman correlation below 0.95, or a median change above 3 points). A major version
    (section 11) may change the benchmark set and the scale (its conversion table shows how):
    only the ranked count and the rank correlation still apply."""
    before = {b.benchmark: b for b in published.calibration.benchmarks}
    after = {b.benchmark: b for b in proposed.calibration.benchmarks}
    if not major:
        problem = _benchmark_set_problem(before, after)
        if problem is not None:
            return problem
    ranked_before = sum(m.ranked for m in published.models)
    ranked_after = sum(m.ranked for m in proposed.models)
    if abs(ranked_after - ranked_before) > RANKED_CHANGE * ranked_before:
        return f"the ranked models would go from {ranked_before} to {ranked_after}, more than 10%"
    old_scores = {m.slug: m.si_iq_full for m in published.models}
    common = [m for m in proposed.models if m.slug in old_scores]
    if len(common) >= 2:
        now = np.array([m.si_iq_full for m in common])
        then = np.array([old_scores[m.slug] for m in common])
        # Imported here: scipy.stats takes half a second to load, and only a recalibration needs it.
        from scipy.stats import spearmanr  # noqa: PLC0415

        correlation = float(spearmanr(then, now).statistic)
        if not correlation >= SPEARMAN_FLOOR:
            return (
                f"scores would reorder: Spearman rank correlation {correlation:.4f} is below 0.95"
            )
        moved = float(np.median(np.abs(now - then)))
        if not major and moved > MEDIAN_MOVE:
            return f"scores would move by a median of {moved:.2f} points, more than 3"
    return None


def _benchmark_set_problem(
    before: Mapping[str, BenchmarkParameters], after: Mapping[str, BenchmarkParameters]
) -> str | None:
    """Section 3: a benchmark would leave the index, or join without having been left out only
    for too few models."""
    for name, old in before.items():
        if old.kept and not (name in after and after[name].kept):
            return f"benchmark {name} would leave the index"
    for name, new in after.items():
        old_entry = before.get(name)
        if new.kept and not (
            old_entry is not None and (old_entry.kept or old_entry.reason in JOINABLE)
        ):
            return (
                f"benchmark {name} would join without having been left out only for too few models"
            )
    return None
