"""Middle, spread and instability of a set of runs (methodology sections 7 and 10)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from fractions import Fraction

UNSTABLE_ABOVE = Fraction(30)
"""Percent; exactly 30 is stable."""
FORMULA = "spread = (highest - lowest) / middle * 100"
"""Section 10's formula, as the methodology writes it (and `spread` computes it)."""


def middle(scores: Sequence[Fraction]) -> Fraction:
    """Methodology section 7, point 4: the middle result counts (the median; for an even count
    the mean of the two middle values)."""
    return Fraction(statistics.median(scores))


def spread(scores: Sequence[Fraction]) -> Fraction | float:
    """Methodology section 10: (highest - lowest) / middle * 100; a middle of 0 with any score
    above 0 is unbounded (math.inf), and three zeros have spread 0."""
    low, high, mid = min(scores), max(scores), middle(scores)
    if mid == 0:
        return Fraction(0) if high == 0 else math.inf
    return (high - low) / mid * 100


def is_unstable(scores: Sequence[Fraction]) -> bool:
    """Methodology section 10: a set is unstable when its spread is strictly above 30%."""
    return spread(scores) > UNSTABLE_ABOVE
