"""From a raw score to the common scale (SI-IQ section 2)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]


class Transformed(NamedTuple):
    p: Floats
    p_star: Floats
    y: Floats
    s_star: Floats
    v: Floats


def transform(s: ArrayLike, chance: ArrayLike, ceiling: ArrayLike, n: ArrayLike) -> Transformed:
    """SI-IQ section 2: p = clip((s - g)/(c - g), 0, 1); p* = (p n + 0.5)/(n + 1);
    y = logit(p*); s* = g + (c - g) p*; v = s*(1 - s*) n / ((n + 1)^2 (c - g)^2 p*^2 (1 - p*)^2),
    where a clipped p keeps the derivative inside the range (decision A4)."""
    s, g, c, n = (np.asarray(a, dtype=np.float64) for a in (s, chance, ceiling, n))
    width = c - g
    p = np.clip((s - g) / width, 0.0, 1.0)
    p_star = (p * n + 0.5) / (n + 1)
    y = np.log(p_star / (1 - p_star))
    s_star = g + width * p_star
    v = s_star * (1 - s_star) * n / ((n + 1) ** 2 * width**2 * p_star**2 * (1 - p_star) ** 2)
    return Transformed(p, p_star, y, s_star, v)


def effective_n(score: float, standard_error: float) -> float:
    """SI-IQ section 2: the number of independent questions that would give the evaluator's
    standard error, n = s(1 - s) / SE^2."""
    return score * (1 - score) / standard_error**2
