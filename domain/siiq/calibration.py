"""Calibration, steps 1 to 5 of SI-IQ section 3, as decided in SIIQ-DECISIONS.md A5 to A18."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

import numpy as np

from domain.siiq.data import Floats, Observations, total
from domain.siiq.scores import Parameters, sums, theta0

MIN_MODELS, MIN_RESULTS, MIN_REFERENCE = 10, 4, 3
ALPHA_FLOOR, SIGMA2_FLOOR, SIGMA2_START = 0.05, 0.10, 0.25
TOLERANCE, MAX_ROUNDS = 1e-10, 500

FEW_MODELS = "fewer than 10 models with at least 4 results"
FEW_REFERENCE = "fewer than 3 reference-group models"
NOT_CONNECTED = "not connected to the largest group"
RANK_CHECK = "dropped by the rank check"
ALPHA_AT_FLOOR = "loading at the 0.05 floor"


class CalibrationCheckFailed(Exception):
    """Section 3: a check of the calibration failed, so it is rejected and the previous one
    stays in force (the ledger records that as a `CalibrationRejected` event)."""

    def __init__(self, reason: str, dropped: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.dropped = dropped or {}


@dataclass(frozen=True)
class Fit:
    obs: Observations
    params: Parameters
    theta: Floats
    free_slopes: Floats
    converged: bool
    rounds: int


@dataclass(frozen=True)
class Calibration:
    """An accepted run of steps 1 to 5: the fitted set, its parameters, shift and scale."""

    fit: Fit
    shift: float
    scale: float
    dropped: dict[str, str] = field(default_factory=dict)


def eligible(
    obs: Observations, reference: Set[str], excluded: Set[str]
) -> tuple[Observations, dict[str, str]]:
    """Step 1 (A5, A6): the fixed point of "models with 4 results" and "benchmarks with 10 such
    models, 3 of them in the reference group", then the largest connected group."""
    benchmarks = {b.benchmark for b in obs.benchmarks} - excluded
    left_out: dict[str, str] = {}
    while True:
        current = obs.subset(obs.models, benchmarks)
        counted = current.results_per_model() >= MIN_RESULTS
        in_reference = np.array([m in reference for m in current.models])
        rows = counted[current.m]
        models_per = np.bincount(current.b[rows], minlength=len(current.benchmarks))
        reference_per = np.bincount(
            current.b[rows & in_reference[current.m]], minlength=len(current.benchmarks)
        )
        for i, benchmark in enumerate(current.benchmarks):
            if models_per[i] < MIN_MODELS:
                left_out[benchmark.benchmark] = FEW_MODELS
            elif reference_per[i] < MIN_REFERENCE:
                left_out[benchmark.benchmark] = FEW_REFERENCE
        keep = {
            b.benchmark
            for i, b in enumerate(current.benchmarks)
            if models_per[i] >= MIN_MODELS and reference_per[i] >= MIN_REFERENCE
        }
        if keep == benchmarks:
            models = [m for i, m in enumerate(current.models) if counted[i]]
            break
        benchmarks = keep
    component = _largest_component(obs.subset(models, benchmarks))
    for name in benchmarks - {b.benchmark for b in component.benchmarks}:
        left_out[name] = NOT_CONNECTED
    return component, left_out


def _largest_component(obs: Observations) -> Observations:
    """A6: by models + benchmarks, then by more models, then by the smallest model slug."""
    by_model, by_bench = obs.neighbours()
    seen: set[int] = set()
    best: tuple[tuple[int, int, str], set[int], set[int]] | None = None
    for start in range(len(obs.models)):
        if start in seen:
            continue
        models, benchmarks, frontier = {start}, set[int](), [start]
        while frontier:
            m = frontier.pop()
            for b in by_model[m] - benchmarks:
                benchmarks.add(b)
                frontier += [x for x in by_bench[b] if x not in models]
                models.update(by_bench[b])
        seen |= models
        key = (-(len(models) + len(benchmarks)), -len(models), min(obs.models[i] for i in models))
        if best is None or key < best[0]:
            best = (key, models, benchmarks)
    if best is None:
        return obs.subset([], [])
    return obs.subset(
        [obs.models[i] for i in best[1]], [obs.benchmarks[i].benchmark for i in best[2]]
    )


def _standardise(values: Floats, reference: np.ndarray) -> tuple[Floats, float, float]:
    mean, sd = float(values[reference].mean()), float(values[reference].std())
    return (values - mean) / sd, mean, sd


def _lines(obs: Observations, theta: Floats, sigma2: Floats) -> tuple[Parameters, Floats]:
    """Step 3 (A10, A11): per benchmark the weighted least-squares line of y on theta (slope
    floored at 0.05, the intercept refitted with it), then sigma^2 from its residuals.
    Returns the parameters and the unconstrained slopes."""
    count = len(obs.benchmarks)
    w = 1 / (sigma2[obs.b] + obs.v)
    x = theta[obs.m]

    def per_benchmark(values: Floats) -> Floats:
        return total(obs.b, values, count)

    sw, sx, sy, sxx, sxy = (
        per_benchmark(w),
        per_benchmark(w * x),
        per_benchmark(w * obs.y),
        per_benchmark(w * x * x),
        per_benchmark(w * x * obs.y),
    )
    slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    alpha = np.where(slope <= ALPHA_FLOOR, ALPHA_FLOOR, slope)
    beta = (sy - alpha * sx) / sw
    residual = obs.y - alpha[obs.b] * x - beta[obs.b]
    n = np.bincount(obs.b, minlength=count)
    spread = per_benchmark(residual**2) / (n - 2) - per_benchmark(obs.v) / n
    return Parameters(alpha, beta, np.maximum(spread, SIGMA2_FLOOR)), slope


def fit(obs: Observations, reference: Set[str]) -> Fit:
    """Steps 2 to 4 (A8, A9): z-score start, alternating rounds until no theta moves more than
    1e-10 (at most 500), then one more fit of the lines."""
    in_reference = np.array([m in reference for m in obs.models])
    per_bench = np.maximum(obs.results_per_benchmark(), 1)
    mean = np.bincount(obs.b, obs.y, minlength=len(obs.benchmarks)) / per_bench
    sd = np.sqrt(
        np.bincount(obs.b, (obs.y - mean[obs.b]) ** 2, minlength=len(obs.benchmarks)) / per_bench
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (obs.y - mean[obs.b]) / sd[obs.b]
        start = np.bincount(obs.m, z, minlength=len(obs.models)) / obs.results_per_model()
        theta, _, _ = _standardise(start, in_reference)
        sigma2 = np.full(len(obs.benchmarks), SIGMA2_START)
        converged, rounds = False, 0
        while rounds < MAX_ROUNDS and np.all(np.isfinite(theta)):
            rounds += 1
            params, _ = _lines(obs, theta, sigma2)
            sigma2 = params.sigma2
            # (d) Folding the standardisation into alpha and beta is left out: the next round
            # refits the lines on the standardised theta, which gives the folded line exactly.
            new, _, _ = _standardise(theta0(sums(obs, params)), in_reference)
            moved = float(np.max(np.abs(new - theta)))
            theta = new
            if moved <= TOLERANCE:
                converged = True
                break
        params, slopes = _lines(obs, theta, sigma2)
    return Fit(obs, params, theta, slopes, converged, rounds)


def null_directions(obs: Observations, params: Parameters, theta: Floats) -> int:
    """A13: columns minus rank of the Jacobian of alpha_b theta_m + beta_b over every result,
    with respect to every theta, alpha and beta (numpy's matrix_rank tolerance)."""
    models, benches, rows = len(obs.models), len(obs.benchmarks), len(obs.m)
    jacobian = np.zeros((rows, models + 2 * benches))
    index = np.arange(rows)
    jacobian[index, obs.m] = params.alpha[obs.b]
    jacobian[index, models + obs.b] = theta[obs.m]
    jacobian[index, models + benches + obs.b] = 1.0
    return models + 2 * benches - int(np.linalg.matrix_rank(jacobian))


def _fixing_drop(
    full: Observations, current: Fit, reference: Set[str], excluded: set[str]
) -> str | None:
    """A15: the first benchmark, fewest models first, whose removal leaves two null directions."""
    obs = current.obs
    counts = obs.results_per_benchmark()
    order = sorted(
        range(len(obs.benchmarks)), key=lambda i: (counts[i], obs.benchmarks[i].benchmark)
    )
    for i in order:
        name = obs.benchmarks[i].benchmark
        trial, _ = eligible(full, reference, excluded | {name})
        if not trial.models:
            continue
        inside = set(trial.models) <= set(obs.models) and {
            b.benchmark for b in trial.benchmarks
        } <= {b.benchmark for b in obs.benchmarks}
        if inside:
            keep_m = [obs.models.index(m) for m in trial.models]
            keep_b = [
                next(j for j, b in enumerate(obs.benchmarks) if b.benchmark == t.benchmark)
                for t in trial.benchmarks
            ]
            params = Parameters(*(p[keep_b] for p in current.params))
            directions = null_directions(trial, params, current.theta[keep_m])
        else:
            refit = fit(trial, reference)
            directions = null_directions(trial, refit.params, refit.theta)
        if directions == 2:
            return name
    return None


def calibrate(full: Observations, reference: Set[str]) -> Calibration:
    """Steps 1 to 5 with every rejection and drop-and-restart rule (A7, A14 to A17)."""
    excluded: set[str] = set()
    dropped: dict[str, str] = {}
    while True:
        obs, left_out = eligible(full, reference, excluded)
        missing = sorted(reference - set(obs.models))
        if missing:
            raise CalibrationCheckFailed(
                f"reference model {missing[0]} is missing from the fitted set", dropped | left_out
            )
        current = fit(obs, reference)
        if not all(np.all(np.isfinite(a)) for a in (*current.params, current.theta)):
            raise CalibrationCheckFailed("the fit produces non-finite values", dropped | left_out)
        if null_directions(obs, current.params, current.theta) != 2:
            name = _fixing_drop(full, current, reference, excluded)
            if name is None:
                raise CalibrationCheckFailed(
                    "the rank check fails and no single benchmark fixes it", dropped | left_out
                )
            excluded.add(name)
            dropped[name] = RANK_CHECK
            continue
        if not current.converged:
            raise CalibrationCheckFailed(
                f"the fit did not converge within {MAX_ROUNDS} rounds", dropped | left_out
            )
        floored = [
            b.benchmark
            for b, s in zip(obs.benchmarks, current.free_slopes, strict=True)
            if s <= ALPHA_FLOOR
        ]
        if floored:
            excluded.update(floored)
            dropped.update((name, ALPHA_AT_FLOOR) for name in floored)
            continue
        shift, scale = _affine(current, reference)
        if not (np.isfinite(shift) and np.isfinite(scale) and scale > 0):
            raise CalibrationCheckFailed(
                "shift or scale is not a finite positive number", dropped | left_out
            )
        return Calibration(current, shift, scale, dropped | left_out)


def _affine(current: Fit, reference: Set[str]) -> tuple[float, float]:
    """Step 5 (A17): theta_0 of every reference model over its results; their mean and
    population SD are shift and scale."""
    values = theta0(sums(current.obs, current.params))
    in_reference = np.array([m in reference for m in current.obs.models])
    return float(values[in_reference].mean()), float(values[in_reference].std())
