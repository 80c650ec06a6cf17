"""The straightforward computations the SI-IQ engine replaced for speed, as the engine had them
before (the dense SVD of the full Jacobian, a loop over the held-out models, a search from
every model, a sort of the (model, family) keys), so the tests can compare the engine's
versions with them and the benchmark can time them as its baseline. Nothing in domain/
imports this."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import numpy as np

from domain.siiq import calibration, kappa
from domain.siiq.calibration import Calibration
from domain.siiq.data import Floats, Observations
from domain.siiq.scores import Parameters, closed_form, sums


def null_directions(obs: Observations, params: Parameters, theta: Floats) -> int:
    """A13 as written: the dense Jacobian of alpha_b theta_m + beta_b, one row per result,
    columns theta (every model), alpha and beta (every benchmark); columns minus the rank
    numpy's matrix_rank finds (dense SVD, tolerance s_max * max(shape) * eps)."""
    models, benches, rows = len(obs.models), len(obs.benchmarks), len(obs.m)
    jacobian = np.zeros((rows, models + 2 * benches))
    index = np.arange(rows)
    jacobian[index, obs.m] = params.alpha[obs.b]
    jacobian[index, models + obs.b] = theta[obs.m]
    jacobian[index, models + benches + obs.b] = 1.0
    return models + 2 * benches - int(np.linalg.matrix_rank(jacobian))


def largest_component(obs: Observations) -> Observations:
    """A6 by a search from every model in turn: the group with most models + benchmarks, then
    most models, then the smallest model slug."""
    by_model: dict[int, set[int]] = {i: set() for i in range(len(obs.models))}
    by_bench: dict[int, set[int]] = {j: set() for j in range(len(obs.benchmarks))}
    for m, b in zip(obs.m.tolist(), obs.b.tolist(), strict=True):
        by_model[m].add(b)
        by_bench[b].add(m)
    seen: set[int] = set()
    best: tuple[tuple[int, int, str], set[int], set[int]] | None = None
    for start in range(len(obs.models)):
        if start in seen:
            continue
        models, benchmarks, frontier = {start}, set[int](), [start]
        while frontier:
            for b in by_model[frontier.pop()] - benchmarks:
                benchmarks.add(b)
                frontier += [x for x in by_bench[b] if x not in models]
                models |= by_bench[b]
        seen |= models
        key = (-(len(models) + len(benchmarks)), -len(models), min(obs.models[i] for i in models))
        if best is None or key < best[0]:
            best = (key, models, benchmarks)
    if best is None:
        return obs.subset([], [])
    return obs.subset(
        [obs.models[i] for i in best[1]], [obs.benchmarks[j].benchmark for j in best[2]]
    )


def family_counts(obs: Observations) -> Floats:
    """Section 5's F_b per result: the model's results in the family of the result's
    benchmark, by counting the distinct (model, family) keys."""
    family = obs.family_index()[obs.b] if len(obs.b) else obs.b
    key = obs.m * (int(family.max(initial=0)) + 1) + family
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return np.asarray(counts[inverse], dtype=np.float64)


def half_differences(full: Observations, fold: Calibration, held_out: list[str]) -> list[float]:
    """A20 one held-out model at a time: its families sorted by name, even positions to half A,
    odd to B; sections 5's theta and SE of each half; z = the difference over the joint SE."""
    obs = full.subset(held_out, [b.benchmark for b in fold.fit.obs.benchmarks])
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


@contextmanager
def literal_engine() -> Iterator[None]:
    """The engine with the straightforward computations in place of the fast ones (the
    dense SVD decides every rank check)."""
    with (
        mock.patch.object(calibration, "null_directions", null_directions),
        mock.patch.object(calibration, "_largest_component", largest_component),
        mock.patch.object(kappa, "half_differences", half_differences),
        mock.patch.object(Observations, "family_counts", family_counts),
    ):
        yield
