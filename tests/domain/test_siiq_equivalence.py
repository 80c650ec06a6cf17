"""The SI-IQ engine's fast computations against the straightforward ones (tests/siiq_literal.py)
on synthetic problems: the rank check (A13) against the dense SVD of the full Jacobian, rank-
deficient problems included; the kappa halves (A20) against a loop over the held-out models;
the largest connected group (A6) against a search from every model; F_b against a count per
result; and whole calibrations, kappa and index included, byte for byte."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from domain.siiq.calibration import (
    _largest_component,
    calibrate,
    eligible,
    fit,
    null_directions,
    only_shift_and_stretch,
)
from domain.siiq.data import Floats, Observations
from domain.siiq.index import build_index, run_calibration
from domain.siiq.kappa import folds, half_differences
from domain.siiq.records import Benchmark, Result
from domain.siiq.scores import Parameters
from tests import siiq_literal as literal
from tests.domain.test_siiq_calibration import two_groups
from tests.siiq_synthetic import Problem, jacobian_at, linked_groups


def rank_deficient(name: str) -> tuple[Observations, Parameters, Floats]:
    rng = np.random.default_rng(17)
    if name == "groups linked by one model":
        return linked_groups(rng, shared=1)
    if name == "groups not linked":
        return linked_groups(rng, shared=0)
    cells = np.ones((20, 6), dtype=bool)
    theta, alpha = rng.normal(size=20), rng.uniform(0.5, 1.5, 6)
    if name == "a benchmark with one result":
        cells[1:, 5] = False
    else:  # "a benchmark whose models all have the same theta"
        cells[5:, 5] = False
        theta[:5] = 0.7
    return jacobian_at(cells, theta, alpha)


@pytest.mark.parametrize(
    ("name", "directions"),
    [
        ("groups linked by one model", 3),
        ("groups not linked", 4),
        ("a benchmark with one result", 3),
        ("a benchmark whose models all have the same theta", 3),
    ],
)
def test_null_directions_of_rank_deficient_problems_are_those_of_the_dense_svd(
    name: str, directions: int
) -> None:
    obs, params, theta = rank_deficient(name)
    assert literal.null_directions(obs, params, theta) == directions
    assert not only_shift_and_stretch(obs, params, theta)
    assert null_directions(obs, params, theta) == directions


@pytest.mark.parametrize("gap", [1.0, 1e-2, 1e-5, 1e-9, 1e-13, 0.0])
def test_null_directions_of_nearly_stretchable_groups_are_those_of_the_dense_svd(
    gap: float,
) -> None:
    obs, params, theta = linked_groups(np.random.default_rng(3), shared=2, gap=gap)
    dense = literal.null_directions(obs, params, theta)
    assert null_directions(obs, params, theta) == dense
    fast = only_shift_and_stretch(obs, params, theta)
    assert dense == 2 or not fast
    if gap >= 1.0:
        assert fast  # well linked: decided without the SVD
    if gap <= 1e-9:
        assert not fast  # nearly stretchable: left to the dense SVD
    if gap == 0.0:
        assert dense == 3


def test_null_directions_equal_the_dense_svd_on_random_problems() -> None:
    rng = np.random.default_rng(2026)
    decided_fast = deficient = 0
    for _ in range(300):
        models, benches = int(rng.integers(4, 40)), int(rng.integers(2, 9))
        cells = rng.random((models, benches)) < rng.uniform(0.15, 0.95)
        scale = 10.0 ** rng.integers(-2, 3)
        theta = scale * rng.normal(size=models)
        obs, params, theta = jacobian_at(cells, theta, rng.uniform(0.05, 2.0, benches))
        dense = literal.null_directions(obs, params, theta)
        fast = only_shift_and_stretch(obs, params, theta)
        assert dense == 2 or not fast, "the fast check passed a problem the SVD finds deficient"
        assert null_directions(obs, params, theta) == dense
        decided_fast += fast
        deficient += dense != 2
    assert decided_fast >= 50
    assert deficient >= 50


def test_the_rank_check_of_a_fitted_calibration_is_decided_without_the_svd() -> None:
    problem = Problem(models=200, benchmarks=30, present=0.4, seed=8, reference=50)
    reference = set(problem.reference)
    obs, _ = eligible(Observations.build(problem.results, problem.benchmarks), reference, set())
    fitted = fit(obs, reference)
    assert only_shift_and_stretch(obs, fitted.params, fitted.theta)
    assert literal.null_directions(obs, fitted.params, fitted.theta) == 2


def test_the_rank_check_of_two_groups_sharing_one_model_is_left_to_the_svd() -> None:
    results, bench, reference = two_groups(b_results_per_model=4)
    obs, _ = eligible(Observations.build(results, bench), reference, set())
    fitted = fit(obs, reference)
    assert not only_shift_and_stretch(obs, fitted.params, fitted.theta)
    assert null_directions(obs, fitted.params, fitted.theta) == 3
    assert literal.null_directions(obs, fitted.params, fitted.theta) == 3


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_largest_component_equals_a_search_from_every_model(seed: int) -> None:
    # Four groups of 8 models + benchmarks: 6 x 2, 7 x 1, 7 x 1 and 5 x 3, models shuffled:
    # the two 7 x 1 groups tie on size and on models, and the smallest slug decides.
    cells = np.zeros((25, 7), dtype=bool)
    cells[0:6, 0:2] = cells[6:13, 2] = cells[13:20, 3] = cells[20:25, 4:7] = True
    shuffled = cells[np.random.default_rng(seed).permutation(25)]
    obs, _, _ = jacobian_at(shuffled, np.zeros(25), np.ones(7))
    fast, straight = _largest_component(obs), literal.largest_component(obs)
    assert len(fast.models) == 7
    assert min(fast.models) == min(obs.models[i] for i in np.nonzero(shuffled[:, 2:4].any(1))[0])
    assert fast.models == straight.models
    assert fast.benchmarks == straight.benchmarks
    assert np.array_equal(fast.m, straight.m)
    assert np.array_equal(fast.b, straight.b)


def test_family_counts_equal_a_count_per_result() -> None:
    problem = Problem(models=60, benchmarks=40, present=0.5, seed=4)
    obs = Observations.build(problem.results, problem.benchmarks)
    assert np.array_equal(obs.family_counts(), literal.family_counts(obs))
    assert obs.family_counts().max() > 1


def test_kappa_halves_equal_one_held_out_model_at_a_time() -> None:
    problem = Problem(models=120, benchmarks=25, present=0.3, seed=5, reference=40)
    full = Observations.build(problem.results, problem.benchmarks)
    reference = set(problem.reference)
    main = calibrate(full, reference)
    pairs = 0
    for held_out in folds(main.fit.obs.models):
        rest = [m for m in full.models if m not in set(held_out)]
        training = full.subset(rest, [b.benchmark for b in full.benchmarks])
        fold = calibrate(training, reference - set(held_out))
        fast = half_differences(full, fold, held_out)
        assert fast == literal.half_differences(full, fold, held_out)  # exactly, in order
        pairs += len(fast)
    assert pairs > 100


def inputs(case: str) -> tuple[list[Result], list[Benchmark], list[str]]:
    if case == "two groups sharing one model":
        results, bench, reference = two_groups(b_results_per_model=4)
        return results, bench, sorted(reference)
    problem = {
        "80 x 15": lambda: Problem(models=80, benchmarks=15, present=0.7, seed=21, reference=30),
        "60 x 20 sparse": lambda: Problem(
            models=60, benchmarks=20, present=0.25, seed=7, reference=30
        ),
        "200 x 30": lambda: Problem(models=200, benchmarks=30, present=0.6, seed=11),
        "alpha floor": lambda: Problem(models=120, benchmarks=20, present=0.6, seed=12),
    }[case]()
    results = problem.results
    if case == "alpha floor":
        rng = np.random.default_rng(3)
        results = [
            msgspec.structs.replace(r, score=float(rng.uniform(0.2, 0.8)))
            if r.benchmark == "bench-007"
            else r
            for r in results
        ]
    return results, problem.benchmarks, problem.reference


def index_bytes(results: list[Result], benchmarks: list[Benchmark], reference: list[str]) -> bytes:
    summary = run_calibration(Observations.build(results, benchmarks), benchmarks, set(), reference)
    return msgspec.json.encode(build_index(results, summary))


@pytest.mark.parametrize(
    ("case", "shows"),
    [
        ("80 x 15", b'"accepted":true'),
        ("60 x 20 sparse", b'"accepted":true'),
        ("200 x 30", b'"accepted":true'),
        ("two groups sharing one model", b"dropped by the rank check"),
        ("alpha floor", b"loading at the 0.05 floor"),
    ],
)
def test_a_calibration_equals_the_straightforward_one_byte_for_byte(
    case: str, shows: bytes
) -> None:
    results, benchmarks, reference = inputs(case)
    fast = index_bytes(results, benchmarks, reference)
    with literal.literal_engine():
        straight = index_bytes(results, benchmarks, reference)
    assert shows in fast
    assert fast == straight
