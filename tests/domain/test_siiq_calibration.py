"""SI-IQ section 3: calibration recovers known parameters, applies the rank check's
drop-and-restart rule and its rejections, and is deterministic."""

from __future__ import annotations

from datetime import date

import msgspec
import numpy as np
import pytest

from domain.siiq.calibration import RANK_CHECK, CalibrationCheckFailed, calibrate
from domain.siiq.data import Observations
from domain.siiq.index import (
    IndexDocument,
    build_index,
    recompute,
    run_calibration,
)
from domain.siiq.kappa import nearest_rank_90
from domain.siiq.recalibration import recalibration_problem
from domain.siiq.records import AREAS, Benchmark, Result
from domain.siiq.scores import sums, theta0
from tests.siiq_synthetic import Problem


@pytest.fixture(scope="module")
def problem() -> Problem:
    return Problem(models=200, benchmarks=30, present=0.6, seed=11)


def test_known_abilities_are_recovered(problem: Problem) -> None:
    obs = Observations.build(problem.results, problem.benchmarks)
    calibration = calibrate(obs, set(problem.reference))
    fitted = calibration.fit
    truth = problem.theta[[problem.slugs.index(m) for m in fitted.obs.models]]
    assert np.corrcoef(fitted.theta, truth)[0, 1] > 0.99
    assert len(fitted.obs.models) == 200


def test_the_reference_group_is_at_mean_0_and_sd_1_after_the_affine_step(problem: Problem) -> None:
    obs = Observations.build(problem.results, problem.benchmarks)
    calibration = calibrate(obs, set(problem.reference))
    theta = (
        theta0(sums(calibration.fit.obs, calibration.fit.params)) - calibration.shift
    ) / calibration.scale
    in_reference = np.isin(calibration.fit.obs.models, problem.reference)
    assert theta[in_reference].mean() == pytest.approx(0.0, abs=1e-12)
    assert theta[in_reference].std() == pytest.approx(1.0, abs=1e-12)


def test_two_calibrations_of_the_same_inputs_give_identical_index_documents(
    problem: Problem,
) -> None:
    documents = []
    for _ in range(2):
        obs = Observations.build(problem.results, problem.benchmarks)
        summary = run_calibration(obs, problem.benchmarks, set(), problem.reference)
        documents.append(msgspec.json.encode(build_index(problem.results, summary)))
    assert documents[0] == documents[1]
    document = msgspec.json.decode(documents[0], type=dict)
    assert document["calibration"]["accepted"] is True
    assert document["calibration"]["kappa"] >= 1.0


def test_recompute_agrees_and_names_a_tampered_score(problem: Problem) -> None:
    obs = Observations.build(problem.results, problem.benchmarks)
    index = build_index(
        problem.results, run_calibration(obs, problem.benchmarks, set(), problem.reference)
    )
    assert recompute(index) is None
    tampered = msgspec.structs.replace(
        index,
        models=[
            msgspec.structs.replace(index.models[0], si_iq_full=index.models[0].si_iq_full + 0.01),
            *index.models[1:],
        ],
    )
    assert recompute(tampered) == (
        f"{index.models[0].slug}: si_iq_full is {index.models[0].si_iq_full + 0.01}, "
        f"recomputed {index.models[0].si_iq_full}"
    )


def two_groups(b_results_per_model: int) -> tuple[list[Result], list[Benchmark], set[str]]:
    """Group A: 12 benchmarks, 60 models. Group B: its own benchmarks and 12 models (3 in the
    reference group), linked to A by one model only, so B can stretch against A."""
    rng = np.random.default_rng(5)
    bench = [
        Benchmark(
            benchmark=f"{g}{j:02d}",
            family=f"{g}{j:02d}",
            area=AREAS[j % 5],
            evaluator="e",
            chance=0.0,
            ceiling=1.0,
            n=1000.0,
            n_kind="exact",
        )
        for g, count in (("a", 12), ("b", b_results_per_model))
        for j in range(count)
    ]
    a_models = [f"a-model-{i:02d}" for i in range(60)]
    b_models = [f"b-model-{i:02d}" for i in range(12)]
    results = []

    def add(model: str, benchmark: Benchmark) -> None:
        results.append(
            Result(
                model=model,
                benchmark=benchmark.benchmark,
                evaluator="",
                score=float(rng.uniform(0.1, 0.9)),
                released=date(2025, 5, 1),
            )
        )

    for model in a_models:
        for benchmark in bench[:12]:
            add(model, benchmark)
    for k, model in enumerate(b_models):
        for j, benchmark in enumerate(bench[12:]):
            if not (j == 0 and k >= 10):  # b00 has the fewest models
                add(model, benchmark)
    for benchmark in bench[12:]:
        add(a_models[0], benchmark)  # the one shared model
    return results, bench, set(a_models[:20]) | set(b_models[:3])


def test_two_groups_sharing_one_model_trigger_the_drop_and_restart_rule() -> None:
    results, bench, reference = two_groups(b_results_per_model=4)
    with pytest.raises(CalibrationCheckFailed) as rejected:
        calibrate(Observations.build(results, bench), reference)
    # Dropping b00 leaves the B models 3 results each, so group B leaves the fit; then the
    # reference models of group B are missing, which rejects the calibration (decision A7).
    assert rejected.value.dropped["b00"] == RANK_CHECK
    assert rejected.value.reason == "reference model b-model-00 is missing from the fitted set"


def test_a_rank_problem_no_single_drop_fixes_is_rejected() -> None:
    results, bench, reference = two_groups(b_results_per_model=6)
    with pytest.raises(CalibrationCheckFailed) as rejected:
        calibrate(Observations.build(results, bench), reference)
    assert rejected.value.reason == "the rank check fails and no single benchmark fixes it"
    assert RANK_CHECK not in rejected.value.dropped.values()


def test_a_missing_reference_model_rejects_the_calibration(problem: Problem) -> None:
    obs = Observations.build(problem.results, problem.benchmarks)
    with pytest.raises(CalibrationCheckFailed, match="reference model nobody is missing"):
        calibrate(obs, {*problem.reference, "nobody"})


def test_a_benchmark_whose_scores_are_all_equal_gives_non_finite_values(problem: Problem) -> None:
    flat = [
        msgspec.structs.replace(r, score=0.5) if r.benchmark == "bench-000" else r
        for r in problem.results
    ]
    with pytest.raises(CalibrationCheckFailed, match="non-finite"):
        calibrate(Observations.build(flat, problem.benchmarks), set(problem.reference))


def test_the_nearest_rank_90th_percentile() -> None:
    assert nearest_rank_90(np.arange(1.0, 11.0)) == 9.0  # rank ceil(0.9 * 10) = 9
    assert nearest_rank_90(np.arange(1.0, 31.0)) == 27.0
    assert nearest_rank_90(np.array([5.0])) == 5.0


def test_a_benchmark_that_does_not_rise_with_ability_is_dropped_at_the_alpha_floor(
    problem: Problem,
) -> None:
    rng = np.random.default_rng(3)
    noisy = [
        msgspec.structs.replace(r, score=float(rng.uniform(0.2, 0.8)))
        if r.benchmark == "bench-007"
        else r
        for r in problem.results
    ]
    calibration = calibrate(Observations.build(noisy, problem.benchmarks), set(problem.reference))
    assert calibration.dropped == {"bench-007": "loading at the 0.05 floor"}
    assert "bench-007" not in {b.benchmark for b in calibration.fit.obs.benchmarks}


def test_scoring_a_new_model_with_frozen_parameters_changes_no_other_score(
    problem: Problem,
) -> None:
    obs = Observations.build(problem.results, problem.benchmarks)
    summary = run_calibration(obs, problem.benchmarks, set(), problem.reference)
    before = {m.slug: m for m in build_index(problem.results, summary).models}
    newcomer = [
        Result(
            model="newcomer",
            benchmark=b.benchmark,
            score=0.9,
            evaluator="",
            released=date(2025, 7, 1),
        )
        for b in problem.benchmarks[:6]
    ]
    after = {m.slug: m for m in build_index([*problem.results, *newcomer], summary).models}
    assert "newcomer" in after
    assert all(after[s].si_iq_full == before[s].si_iq_full for s in before)
    assert all(after[s].se == before[s].se for s in before)


def index_of(problem: Problem, results: list[Result] | None = None) -> IndexDocument:
    obs = Observations.build(results or problem.results, problem.benchmarks)
    return build_index(
        results or problem.results,
        run_calibration(obs, problem.benchmarks, set(), problem.reference),
    )


def test_a_recalibration_of_the_same_data_passes_its_checks(problem: Problem) -> None:
    assert recalibration_problem(index_of(problem), index_of(problem)) is None


def test_a_recalibration_that_would_drop_a_benchmark_is_rejected(problem: Problem) -> None:
    fewer = [r for r in problem.results if r.benchmark != "bench-004"]
    assert recalibration_problem(index_of(problem), index_of(problem, fewer)) == (
        "benchmark bench-004 would leave the index"
    )


def test_a_recalibration_that_moves_scores_too_much_is_rejected(problem: Problem) -> None:
    published = index_of(problem)
    shuffled = list(reversed([m.slug for m in published.models]))
    renamed = {m.slug: new for m, new in zip(published.models, shuffled, strict=True)}
    moved = [
        msgspec.structs.replace(r, model=renamed.get(r.model, r.model)) for r in problem.results
    ]
    problem_text = recalibration_problem(published, index_of(problem, moved))
    assert problem_text is not None
    assert problem_text.startswith("scores would reorder: Spearman rank correlation")


def test_an_area_score_needs_two_families_in_the_area(problem: Problem) -> None:
    index = index_of(problem)
    families = {b.benchmark: (b.area, b.family) for b in problem.benchmarks}
    for model in index.models:
        per_area: dict[str, set[str]] = {}
        for result in model.results:
            area, family = families[result.benchmark]
            per_area.setdefault(area, set()).add(family)
        assert set(model.areas) == {a for a, f in per_area.items() if len(f) >= 2}
    single = [
        m
        for m in index.models
        if any(
            len({families[r.benchmark][1] for r in m.results if families[r.benchmark][0] == a}) == 1
            for a in {families[r.benchmark][0] for r in m.results}
        )
    ]
    assert single, "some model has results from one family only in some area"
