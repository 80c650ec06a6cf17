"""A model's SI-IQ in closed form (section 5), by area (section 6), and who is ranked where
(section 7)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from domain.siiq.data import Floats, Observations, total

LAMBDA = 0.1
"""Section 5: the small pull towards the centre for models with very few results."""
Z90 = 1.644854
"""Section 5: the 90% interval is 1.644854 standard errors either side."""


class Parameters(NamedTuple):
    """Per benchmark of the observations, in their order: loading, difficulty, residual variance."""

    alpha: Floats
    beta: Floats
    sigma2: Floats


class Sums(NamedTuple):
    """Per model: the three sums section 5 needs."""

    wa2: Floats
    way: Floats
    w2a2var: Floats


def weights(obs: Observations, sigma2: Floats) -> Floats:
    """Section 5: w_b = omega_b f_b / (sigma_b^2 + v_b), f_b = 1/F_b, omega_b = 1/sqrt(K)."""
    return obs.area_weights()[obs.b] / obs.family_counts() / (sigma2[obs.b] + obs.v)


def sums(obs: Observations, params: Parameters, rows: np.ndarray | None = None) -> Sums:
    """Section 5's sums per model, over all its results or over `rows` (a boolean mask)."""
    a, w = params.alpha[obs.b], weights(obs, params.sigma2)
    terms = (
        w * a * a,
        w * a * (obs.y - params.beta[obs.b]),
        w * w * a * a * (params.sigma2[obs.b] + obs.v),
    )
    keep = np.ones(len(obs.m), dtype=bool) if rows is None else rows
    count = len(obs.models)
    wa2, way, w2a2var = (total(obs.m[keep], t[keep], count) for t in terms)
    return Sums(wa2, way, w2a2var)


def theta0(s: Sums) -> Floats:
    """Section 5: theta_0 = sum(w alpha (y - beta)) / (lambda + sum(w alpha^2))."""
    return s.way / (LAMBDA + s.wa2)


class Score(NamedTuple):
    theta0: Floats
    theta: Floats
    se: Floats
    si_iq: Floats
    low: Floats
    high: Floats


def closed_form(s: Sums, shift: float, scale: float, kappa: float, pull: float = LAMBDA) -> Score:
    """Section 5: D = pull + sum(w a^2); theta_0 = sum(w a (y - b)) / D;
    theta = (theta_0 - shift) / scale; SE = kappa sqrt(sum(w^2 a^2 (sigma^2 + v))) / D / scale;
    SI-IQ = 100 + 15 theta, and its 90% interval. Area scores (section 6) use a pull of 1."""
    d = pull + s.wa2
    t0 = s.way / d
    theta = (t0 - shift) / scale
    se = kappa * np.sqrt(s.w2a2var) / d / scale
    return Score(
        t0,
        theta,
        se,
        100 + 15 * theta,
        100 + 15 * (theta - Z90 * se),
        100 + 15 * (theta + Z90 * se),
    )


def area_score(s: Sums, model_theta0: Floats, shift: float, scale: float, kappa: float) -> Score:
    """Section 6: theta_d0 = (sum_d w a (y - b) + 1 theta_0) / (sum_d w a^2 + 1), and the same
    sandwich error over the area's results, theta_0 taken as known."""
    pulled = Sums(s.wa2, s.way + model_theta0, s.w2a2var)
    return closed_form(pulled, shift, scale, kappa, pull=1.0)


def shown(value: float) -> int:
    """Section 5: shown values are rounded by Python's round(), exact halves to even (of the
    value as a Python float: numpy's own __round__ gives the same integer 20 times slower)."""
    return round(float(value))


class Eligibility(NamedTuple):
    families: int
    areas: int
    evaluators: int
    released: Sequence[date | None]


def is_ranked(e: Eligibility) -> bool:
    """Section 7 (decision A25): results from at least 5 families, 3 areas and 2 evaluators, and
    versions released within 60 days of each other (an unknown release date cannot show it)."""
    if e.families < 5 or e.areas < 3 or e.evaluators < 2 or None in e.released:
        return False
    days = [d for d in e.released if d is not None]
    return bool(days) and (max(days) - min(days)).days <= 60


def ranking(slugs: Sequence[str], theta: Sequence[float]) -> list[int]:
    """Section 7: ranked models by theta, highest first, ties by slug; returns indexes."""
    return sorted(range(len(slugs)), key=lambda i: (-theta[i], slugs[i]))


def position_ranges(low: Floats, high: Floats) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Section 7 (A26), for every ranked model at once: best = 1 + the ranked models whose
    interval lies wholly above its own; worst = the ranked models whose upper end reaches its
    lower end (itself included)."""
    count = len(low)
    best = 1 + count - np.searchsorted(np.sort(low), high, side="right")
    worst = count - np.searchsorted(np.sort(high), low, side="left")
    return best.astype(np.int64), worst.astype(np.int64)
