"""kappa, the empirical widening of the intervals: step 6 of SI-IQ section 3 (A19 to A21)."""

from __future__ import annotations

from collections.abc import Set

import numpy as np
from numpy.typing import NDArray

from domain.siiq.calibration import Calibration, CalibrationCheckFailed, calibrate
from domain.siiq.data import Floats, Observations
from domain.siiq.scores import closed_form, sums

FOLDS, MIN_FOLDS, MIN_PAIRS = 5, 3, 30
Z90 = 1.644854


def folds(fitted_models: tuple[str, ...]) -> list[list[str]]:
    """A19: the fitted slugs in code-point order, numbered from 0; fold = number mod 5."""
    ordered = sorted(fitted_models)
    return [ordered[k::FOLDS] for k in range(FOLDS)]


def half_differences(full: Observations, fold: Calibration, held_out: list[str]) -> list[float]:
    """A20: for each held-out model with 4 results on the fold's benchmarks, its families
    alternated into halves A and B (2 results each at least); z = (theta_A - theta_B) /
    sqrt(SE_A^2 + SE_B^2) with kappa = 1. In the held-out models' order (code point)."""
    calibrated = [b.benchmark for b in fold.fit.obs.benchmarks]
    obs = full.subset(held_out, calibrated)
    in_b = halves(obs)
    count = len(obs.models)
    paired = (
        (obs.results_per_model() >= 4)
        & (np.bincount(obs.m[~in_b], minlength=count) >= 2)
        & (np.bincount(obs.m[in_b], minlength=count) >= 2)
    )
    a, b = (
        closed_form(sums(obs, fold.fit.params, rows), fold.shift, fold.scale, 1.0)
        for rows in (~in_b, in_b)
    )
    z = (a.theta[paired] - b.theta[paired]) / np.sqrt(a.se[paired] ** 2 + b.se[paired] ** 2)
    return [float(value) for value in z]


def halves(obs: Observations) -> NDArray[np.bool_]:
    """A20: per result, whether its family is at an odd position (half B) among the distinct
    families of its model's results sorted by name (code point); even positions are half A."""
    family = obs.family_index()[obs.b]
    present = np.zeros((len(obs.models), int(family.max(initial=-1)) + 1), dtype=np.int64)
    present[obs.m, family] = 1
    position = np.cumsum(present, axis=1)[obs.m, family] - 1
    return np.asarray(position % 2 == 1)


def nearest_rank_90(values: Floats) -> float:
    """A21: the value at 1-based rank ceil(0.9 N) of the values sorted ascending."""
    ordered = np.sort(values)
    return float(ordered[(90 * len(ordered) + 99) // 100 - 1])


def kappa(
    full: Observations, main: Calibration, reference: Set[str]
) -> tuple[float | None, int, int]:
    """Step 6: kappa = the 90th percentile of |z| over the folds' held-out models / 1.644854,
    never below 1; None (undetermined) with fewer than 3 calibrated folds or 30 pairs.
    Returns kappa, the folds calibrated and the pairs."""
    zs: list[float] = []
    calibrated = 0
    for held_out in folds(main.fit.obs.models):
        leaving = set(held_out)
        rest = [m for m in full.models if m not in leaving]
        training = full.subset(rest, [b.benchmark for b in full.benchmarks])
        try:
            fold = calibrate(training, reference - leaving)
        except CalibrationCheckFailed:
            continue
        calibrated += 1
        zs += half_differences(full, fold, held_out)
    if calibrated < MIN_FOLDS or len(zs) < MIN_PAIRS:
        return None, calibrated, len(zs)
    return max(nearest_rank_90(np.abs(np.array(zs))) / Z90, 1.0), calibrated, len(zs)
