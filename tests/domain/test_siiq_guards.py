"""SI-IQ section 8's guards and section 11's versions, each rule on its own."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest

from domain.siiq.guards import (
    Moves,
    Seen,
    TableShape,
    big_change,
    confirmed_by_other_run,
    confirmed_by_snapshot,
    definition_changed,
    far_from_prediction,
    format_change,
    hold_reason,
    is_revision,
    leader_released,
    monthly_recalibration_due,
    moved,
    notice_due,
    overtakes_leader,
    prediction_z,
    publication_moves,
    publication_problem,
    removal_due,
    resume_allowed,
    retry_due,
    revision_ready,
    row_loss,
    shrink_accepted,
)
from domain.siiq.records import Benchmark, CalibrationSummary, Result
from domain.siiq.scores import Parameters
from domain.siiq.versions import bump, structural_change

T0 = datetime(2026, 11, 1, tzinfo=UTC)
H = timedelta(hours=1)


def test_big_change_is_more_than_ten_points() -> None:
    assert big_change(0.50, 0.6001)
    assert not big_change(0.50, 0.60)
    assert not big_change(None, 0.99)  # a new result is no change


def bench(name: str, n: float = 100, kind: str = "exact") -> Benchmark:
    return Benchmark(
        benchmark=name,
        family=name,
        area="math",
        evaluator="E",
        chance=0.0,
        ceiling=1.0,
        n=n,
        n_kind=kind,
    )


def result(benchmark: str, score: float) -> Result:
    return Result(
        model="m", benchmark=benchmark, score=score, evaluator="E", released=date(2026, 1, 1)
    )


def test_prediction_z_measures_a_result_against_the_models_other_results() -> None:
    benchmarks = [bench("a"), bench("b"), bench("c")]
    params = Parameters(np.ones(3), np.zeros(3), np.full(3, 0.1))
    others = [result("a", 0.5), result("b", 0.5)]
    near = prediction_z(result("c", 0.5), others, benchmarks, params)
    far = prediction_z(result("c", 0.995), others, benchmarks, params)
    assert near is not None
    assert abs(near) < 0.5
    assert far is not None
    assert far > 4
    assert prediction_z(result("c", 0.5), [], benchmarks, params) is None
    assert prediction_z(result("x", 0.5), others, benchmarks, params) is None


def test_far_from_prediction_holds_a_change_only_if_the_old_value_was_not_far() -> None:
    assert far_from_prediction(4.5, None, changed=False)
    assert far_from_prediction(-4.5, 1.0, changed=True)
    assert not far_from_prediction(4.5, 5.0, changed=True)
    assert not far_from_prediction(3.9, None, changed=False)
    assert hold_reason(0.5, 0.7, None, None) == "changed by 20.0 points (more than 10)"
    assert hold_reason(None, 0.7, 5.0, None) is not None
    assert hold_reason(0.5, 0.55, 1.0, 1.0) is None


def test_a_later_snapshot_confirms_within_002_from_six_hours_before() -> None:
    history = [Seen("s0", T0, 0.80), Seen("s1", T0 + 7 * H, 0.81)]
    assert confirmed_by_snapshot(history, "s0", T0 + 7 * H)
    # The snapshot six hours back showed something else: not confirmed.
    assert not confirmed_by_snapshot(
        [Seen("s0", T0, 0.80), Seen("s1", T0 + 7 * H, 0.83)], "s0", T0 + 7 * H
    )
    # Time alone never releases: the current snapshot is the one the value was held in.
    assert not confirmed_by_snapshot([Seen("s0", T0, 0.80)], "s0", T0 + 30 * 24 * H)
    # A later snapshot under six hours after the first has nothing old enough to agree with.
    assert not confirmed_by_snapshot([Seen("s0", T0, 0.8), Seen("s1", T0 + H, 0.8)], "s0", T0 + H)
    # The most recent one old enough is the one that counts.
    history = [Seen("p", T0 - 24 * H, 0.5), Seen("s0", T0, 0.8), Seen("s1", T0 + 2 * H, 0.8)]
    assert not confirmed_by_snapshot(history, "s0", T0 + 5 * H)
    assert confirmed_by_snapshot(history, "s0", T0 + 6 * H)
    assert not confirmed_by_snapshot([*history[:2], Seen("s1", T0 + 7 * H, None)], "s0", T0 + 7 * H)


def test_the_other_gpqa_run_confirms_within_002() -> None:
    assert confirmed_by_other_run(0.80, 0.82)
    assert not confirmed_by_other_run(0.80, 0.8201)
    assert not confirmed_by_other_run(0.80, None)


def test_new_leader_guard() -> None:
    assert overtakes_leader(False, 130.1, 125.0)
    assert not overtakes_leader(False, 130.0, 125.0)
    assert not overtakes_leader(True, 150.0, 125.0)
    assert not overtakes_leader(False, 150.0, None)
    assert leader_released(True, T0, T0 + 6 * H, 131.0, 129.0)
    assert not leader_released(True, T0, T0 + 5 * H, 131.0, 129.0)
    assert not leader_released(True, T0, T0 + 6 * H, 133.1, 130.0)
    assert not leader_released(False, T0, T0 + 9 * H, 131.0, 131.0)


def test_format_change_and_row_loss() -> None:
    before = [TableShape("a.csv", 100, ("Model", "Score")), TableShape("b.csv", 10, ("Model",))]
    assert format_change(before, before) is None
    assert format_change(before, before[:1]) == "b.csv is gone"
    renamed = [TableShape("a.csv", 100, ("Model", "Points")), before[1]]
    assert format_change(before, renamed) == "a.csv lost column(s) Score"
    assert row_loss(before, [TableShape("a.csv", 76, ()), before[1]], {}) is None
    assert row_loss(before, [TableShape("a.csv", 60, ()), before[1]], {}) is not None
    assert (
        row_loss(before, before, {"gpqa": (20, 13)})
        == "gpqa: rows fell from 20 to 13 (more than 30%)"
    )
    assert row_loss(before, before, {"gpqa": (20, 14)}) is None


def test_shrunk_file_is_the_new_normal_after_24_hours_with_the_same_keep_ratio() -> None:
    assert shrink_accepted(0.9, [0.9, 0.9], since=T0, now=T0 + 24 * H, rows_since=[50, 50])
    assert not shrink_accepted(0.9, [0.9], since=T0, now=T0 + 23 * H, rows_since=[50])
    assert not shrink_accepted(
        0.9, [0.8], since=T0, now=T0 + 48 * H, rows_since=[50]
    )  # a fall in the share
    assert not shrink_accepted(0.9, [0.9, 0.9], since=T0, now=T0 + 24 * H, rows_since=[50, 60])


def test_definition_change_but_not_an_effective_n_moving() -> None:
    assert definition_changed(bench("a"), bench("a")) is None
    assert definition_changed(bench("a", 100), bench("a", 120)) == "n changed from 100 to 120"
    assert definition_changed(bench("a", 80, "effective"), bench("a", 90, "effective")) is None
    assert definition_changed(bench("a", 80, "effective"), bench("a", 100, "assumed")) is not None


def test_deletions_after_six_hours_and_kept_values() -> None:
    assert removal_due(True, T0, T0 + 6 * H)
    assert not removal_due(True, T0, T0 + 5 * H)
    assert not removal_due(False, T0, T0 + 90 * 24 * H)


def test_revision_is_five_and_a_quarter_moving_half_a_point() -> None:
    assert moved(0.50, 0.5051)
    assert not moved(0.50, 0.504)
    assert is_revision(20, 5)
    assert not is_revision(20, 4)
    assert not is_revision(24, 5)
    assert revision_ready({"a", "b"}, {"a", "b", "c"})
    assert not revision_ready({"a", "b"}, {"a"})
    assert retry_due(None, T0)
    assert retry_due(T0, T0 + 24 * H)
    assert not retry_due(T0, T0 + 23 * H)


def test_operator_is_told_once_after_the_delay() -> None:
    assert notice_due(T0, T0 + 7 * 24 * H, timedelta(days=7), told=False)
    assert not notice_due(T0, T0 + 7 * 24 * H, timedelta(days=7), told=True)
    assert not notice_due(T0, T0 + 3 * 24 * H - H, timedelta(days=3), told=False)


@pytest.mark.parametrize(
    ("last", "now", "due"),
    [
        (datetime(2026, 11, 30, 12, tzinfo=UTC), datetime(2026, 12, 1, 5, 59, tzinfo=UTC), False),
        (datetime(2026, 11, 30, 12, tzinfo=UTC), datetime(2026, 12, 1, 6, tzinfo=UTC), True),
        (datetime(2026, 12, 1, 6, tzinfo=UTC), datetime(2026, 12, 20, tzinfo=UTC), False),
        (datetime(2026, 10, 3, tzinfo=UTC), datetime(2026, 12, 1, 1, tzinfo=UTC), True),
        (None, datetime(2026, 12, 1, 6, tzinfo=UTC), False),
    ],
)
def test_monthly_recalibration_at_six_on_the_first(
    last: datetime | None, now: datetime, due: bool
) -> None:
    assert monthly_recalibration_due(last, now) is due


def test_publication_halts_when_ranked_models_vanish_or_many_move() -> None:
    before = {"a": (True, 100.0), "b": (True, 110.0), "c": (False, 90.0)}
    moves = publication_moves(before, {"b": (True, 110.0), "c": (False, 95.0)})
    assert moves == Moves(vanished=["a"], moved=["c"])
    assert publication_problem(moves, 3, recalibrated=True) == "ranked models would vanish: a"
    assert publication_problem(Moves([], ["c"]), 3, recalibrated=False) is not None
    assert publication_problem(Moves([], ["c"]), 3, recalibrated=True) is None
    assert publication_problem(Moves([], ["c"]), 20, recalibrated=False) is None
    assert resume_allowed({"c"}, {"c", "d"}, 6)
    assert not resume_allowed({"c"}, {"c"}, 5)
    assert not resume_allowed({"c", "e"}, {"c"}, 9)


def summary(reference: list[str]) -> CalibrationSummary:
    return CalibrationSummary(
        accepted=True,
        reason=None,
        version="1.0.0",
        shift=0.0,
        scale=1.0,
        kappa=1.0,
        folds=5,
        pairs=30,
        reference=reference,
        fitted_models=reference,
        benchmarks=[],
    )


def test_versions() -> None:
    assert bump("1.0.0", "patch") == "1.0.1"
    assert bump("1.0.3", "minor") == "1.1.0"
    assert bump("1.4.3", "major") == "2.0.0"
    assert structural_change(summary(["a", "b"]), summary(["b", "a"])) is None
    change = structural_change(summary(["a", "b", "c"]), summary(["a", "b"]))
    assert change is not None
    assert "without c" in change
