"""Calibration, steps 1 to 5 of SI-IQ section 3, as decided in SIIQ-DECISIONS.md A5 to A18."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

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
NOTHING_TO_FIT = "no benchmark has 10 models with 4 results, 3 of them in the reference group"
"""Step 1 left nothing to fit (an empty reference group: a fold holding every member, A19)."""


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
    models, benches = len(obs.models), len(obs.benchmarks)
    links = sparse.coo_array(
        (np.ones(len(obs.m)), (obs.m, models + obs.b)), shape=(models + benches, models + benches)
    )
    _, label = connected_components(links, directed=False)
    of_model, of_bench = label[:models], label[models:]
    model_count = np.bincount(of_model, minlength=len(label))
    bench_count = np.bincount(of_bench, minlength=len(label))
    smallest: dict[int, str] = {}
    for component, slug in zip(of_model.tolist(), obs.models, strict=True):
        smallest[component] = min(slug, smallest.get(component, slug))
    if not smallest:
        return obs.subset([], [])
    best = min(
        smallest,
        key=lambda c: (-(model_count[c] + bench_count[c]), -model_count[c], smallest[c]),
    )
    return obs.subset(
        [m for m, c in zip(obs.models, of_model, strict=True) if c == best],
        [b.benchmark for b, c in zip(obs.benchmarks, of_bench, strict=True) if c == best],
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
    with respect to every theta, alpha and beta (numpy's matrix_rank tolerance).

    Shifting and stretching every theta (with alpha and beta following) are null directions
    of the Jacobian exactly, even in floating point, so the count is never below 2. When
    `only_shift_and_stretch` proves every other singular value far above matrix_rank's
    tolerance, the count is 2 and the dense SVD would say the same; otherwise the dense SVD of
    the full Jacobian decides, exactly as A13 reads."""
    if only_shift_and_stretch(obs, params, theta):
        return 2
    return dense_null_directions(obs, params, theta)


def dense_null_directions(obs: Observations, params: Parameters, theta: Floats) -> int:
    """A13 verbatim: the dense Jacobian, the rank of its SVD with numpy's tolerance."""
    models, benches, rows = len(obs.models), len(obs.benchmarks), len(obs.m)
    jacobian = np.zeros((rows, models + 2 * benches))
    index = np.arange(rows)
    jacobian[index, obs.m] = params.alpha[obs.b]
    jacobian[index, models + obs.b] = theta[obs.m]
    jacobian[index, models + benches + obs.b] = 1.0
    return models + 2 * benches - int(np.linalg.matrix_rank(jacobian))


SEPARATION = 1e-8
"""The fast rank check's margin: J's third-smallest singular value squared must be shown to be
at least this share of ||J||_F^2, i.e. the value at least 1e-4 ||J||_F, while matrix_rank's
tolerance is at most ||J||_F * rows * eps (3e-12 ||J||_F at 12,000 results)."""
ROUNDING = 100
"""The fast rank check's rounding allowance, in units of (rows + columns) * eps * ||J||_F^2:
forming the Schur complement and its eigenvalues rounds by at most a few such units."""


def only_shift_and_stretch(obs: Observations, params: Parameters, theta: Floats) -> bool:
    """A13 without the SVD: True only when the Jacobian J provably has no null direction but
    shifting and stretching theta, every other singular value being at least 1e-4 ||J||_F,
    which no SVD could round under matrix_rank's tolerance.

    J'J = L' diag(D^2, S) L with L = [[I, D^-2 C], [0, I]], where D^2 (diagonal) is the
    theta-theta block of J'J, C its theta-(alpha, beta) block and S = G - C' D^-2 C the Schur
    complement of its (alpha, beta) block G (2 x 2 per benchmark). By Ostrowski's theorem the
    third-smallest eigenvalue of J'J, the square of J's third-smallest singular value, is at
    least the third-smallest of diag(D^2, S) times sigma_min(L)^2 >= 1 / (1 + ||D^-2 C||_F)^2."""
    models, benches, rows = len(obs.models), len(obs.benchmarks), len(obs.m)
    alpha, x = params.alpha[obs.b], theta[obs.m]
    d2 = total(obs.m, alpha * alpha, models)
    finite = np.all(np.isfinite(alpha * x)) and np.all(d2 > 0)
    if rows == 0 or models + 2 * benches < 3 or not finite:
        return False
    size, cells = models * 2 * benches, obs.m * (2 * benches) + obs.b
    coupling = (total(cells, alpha * x, size) + total(cells + benches, alpha, size)).reshape(
        models, 2 * benches
    )
    scaled = coupling / d2[:, None]
    block = np.zeros((2 * benches, 2 * benches))
    one = np.arange(benches)
    block[one, one] = total(obs.b, x * x, benches)
    block[one, benches + one] = block[benches + one, one] = total(obs.b, x, benches)
    block[benches + one, benches + one] = obs.results_per_benchmark()
    schur = block - scaled.T @ coupling
    third = np.sort(np.concatenate([np.linalg.eigvalsh(schur), d2]))[2]
    norm2 = float(np.sum(alpha * alpha) + np.sum(x * x) + rows)
    rounding = ROUNDING * (rows + models + 2 * benches) * np.finfo(np.float64).eps * norm2
    lower = (third - rounding) / (1 + np.sqrt(np.sum(scaled**2))) ** 2
    return bool(lower >= SEPARATION * norm2)


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
        if not obs.models:
            raise CalibrationCheckFailed(NOTHING_TO_FIT, dropped | left_out)
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
