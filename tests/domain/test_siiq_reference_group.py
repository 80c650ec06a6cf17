"""SI-IQ sections 3 and 4: a calibration missing members of the frozen reference group is
rejected, and the rejection names every missing member, not only the first."""

from __future__ import annotations

from domain.siiq.data import Observations
from domain.siiq.index import run_calibration
from domain.siiq.reference_group import REFERENCE_GROUP, missing_reference_members
from tests.domain.test_siiq_calibration import two_groups
from tests.siiq_synthetic import Problem


def test_missing_reference_members_are_all_named() -> None:
    problem = Problem(models=60, benchmarks=12, present=0.7, seed=3)
    obs = Observations.build(problem.results, problem.benchmarks)
    group = [*problem.reference, "nobody", "also-nobody"]
    assert missing_reference_members(obs, set(group), set()) == ["also-nobody", "nobody"]
    summary = run_calibration(obs, problem.benchmarks, set(), group)
    assert not summary.accepted
    assert summary.reason == "reference models also-nobody, nobody are missing from the fitted set"


def test_missing_reference_members_after_a_rank_check_drop() -> None:
    results, bench, reference = two_groups(b_results_per_model=4)
    summary = run_calibration(Observations.build(results, bench), bench, set(), sorted(reference))
    assert summary.reason == (
        "reference models b-model-00, b-model-01, b-model-02 are missing from the fitted set"
    )


def test_one_missing_member_keeps_the_wording() -> None:
    problem = Problem(models=60, benchmarks=12, present=0.7, seed=3)
    obs = Observations.build(problem.results, problem.benchmarks)
    summary = run_calibration(obs, problem.benchmarks, set(), [*problem.reference, "nobody"])
    assert summary.reason == "reference model nobody is missing from the fitted set"


def test_the_reference_group_is_the_44_names_of_section_4() -> None:
    assert len(REFERENCE_GROUP) == len(set(REFERENCE_GROUP)) == 44
    assert "Qwen3-235B-A22B-Thinking (Jul 2025)" in REFERENCE_GROUP
