"""kappa, the empirical widening of the intervals: step 6 of SI-IQ section 3 (A19 to A21)."""

from __future__ import annotations

from collections.abc import Set

import numpy as np

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
    sqrt(SE_A^2 + SE_B^2) with kappa = 1."""
    calibrated = [b.benchmark for b in fold.fit.obs.benchmarks]
    obs = full.subset(held_out, calibrated)
    family = np.array([b.family for b in obs.benchmarks])[obs.b]
    zs = []
    for i in range(len(obs.models)):
        own = obs.m == i
        if own.sum() < 4:
            continue
        names = sorted(set(family[own].tolist()))
        in_a = np.isin(family, names[0::2]) & own
        in_b = np.isin(family, names[1::2]) & own
        if in_a.sum() < 2 or in_b.sum() < 2:
            continue
        a, b = (
            closed_form(sums(obs, fold.fit.params, rows), fold.shift, fold.scale, 1.0)
            for rows in (in_a, in_b)
        )
        zs.append(float((a.theta[i] - b.theta[i]) / np.sqrt(a.se[i] ** 2 + b.se[i] ** 2)))
    return zs


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
        rest = [m for m in full.models if m not in set(held_out)]
        training = full.subset(rest, [b.benchmark for b in full.benchmarks])
        try:
            fold = calibrate(training, reference - set(held_out))
        except CalibrationCheckFailed:
            continue
        calibrated += 1
        zs += half_differences(full, fold, held_out)
    if calibrated < MIN_FOLDS or len(zs) < MIN_PAIRS:
        return None, calibrated, len(zs)
    return max(nearest_rank_90(np.abs(np.array(zs))) / Z90, 1.0), calibrated, len(zs)
