"""SI-IQ sections 5 to 7 against hand-computed values and the worked example."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from domain.siiq.scores import (
    Eligibility,
    Sums,
    area_score,
    closed_form,
    is_ranked,
    position_ranges,
    ranking,
    shown,
)


def one(value: float) -> np.ndarray:
    return np.array([value])


def test_the_worked_example_of_section_5() -> None:
    score = closed_form(
        Sums(one(24.3255), one(80.5180), one(14.3103)), shift=0.004024, scale=0.994832, kappa=1.0
    )
    assert score.theta0[0] == pytest.approx(3.2965, abs=5e-5)
    assert score.theta[0] == pytest.approx(3.3096, abs=5e-5)
    assert score.se[0] == pytest.approx(0.1557, abs=5e-5)
    assert score.si_iq[0] == pytest.approx(149.64, abs=5e-3)
    assert shown(score.si_iq[0]) == 150
    assert round(score.low[0], 1) == 145.8
    assert round(score.high[0], 1) == 153.5


def test_kappa_widens_the_interval_and_not_the_score() -> None:
    sums = Sums(one(4.0), one(2.0), one(1.0))
    narrow = closed_form(sums, 0.0, 1.0, 1.0)
    wide = closed_form(sums, 0.0, 1.0, 2.0)
    assert wide.si_iq[0] == narrow.si_iq[0]
    assert wide.se[0] == 2 * narrow.se[0]


def test_the_area_formula_pulls_towards_the_general_ability() -> None:
    # sum_d w a^2 = 3, sum_d w a (y - b) = 6, theta_0 = 1.5: theta_d0 = (6 + 1.5) / (3 + 1)
    score = area_score(
        Sums(one(3.0), one(6.0), one(2.0)), one(1.5), shift=0.5, scale=2.0, kappa=1.0
    )
    assert score.theta0[0] == pytest.approx(1.875)
    assert score.theta[0] == pytest.approx((1.875 - 0.5) / 2.0)
    assert score.se[0] == pytest.approx(np.sqrt(2.0) / 4.0 / 2.0)


def test_rounding_sends_exact_halves_to_even() -> None:
    assert (shown(148.5), shown(149.5), shown(149.64)) == (148, 150, 150)


def test_rounding_a_numpy_value_gives_what_numpy_and_python_round_give() -> None:
    halves = np.arange(-50.5, 250.0, 1.0)
    near = np.nextafter(halves, np.inf)
    values = np.concatenate([halves, near, np.random.default_rng(1).normal(100, 40, 2000)])
    for value in values:
        assert shown(value) == round(value) == round(float(value))
        assert type(shown(value)) is int


ELIGIBLE = Eligibility(
    families=5, areas=3, evaluators=2, released=[date(2025, 1, 1), date(2025, 3, 2)]
)


def test_who_is_ranked() -> None:
    assert is_ranked(ELIGIBLE)
    assert not is_ranked(ELIGIBLE._replace(families=4))
    assert not is_ranked(ELIGIBLE._replace(areas=2))
    assert not is_ranked(ELIGIBLE._replace(evaluators=1))
    assert not is_ranked(ELIGIBLE._replace(released=[date(2025, 1, 1), date(2025, 3, 3)]))
    assert not is_ranked(ELIGIBLE._replace(released=[date(2025, 1, 1), None]))


def test_ranking_by_theta_then_slug() -> None:
    assert ranking(["b", "a", "c"], [1.0, 1.0, 2.0]) == [2, 1, 0]


def test_position_range() -> None:
    low = np.array([140.0, 135.0, 120.0, 139.0])
    high = np.array([150.0, 145.0, 130.0, 141.0])
    best, worst = position_ranges(low, high)
    assert (best[0], worst[0]) == (1, 3)  # 3 reaches 140; 2 does not
    assert (best[2], worst[2]) == (4, 4)  # everything else lies above
    assert (best[3], worst[3]) == (1, 3)  # touching intervals overlap
    assert (best[1], worst[1]) == (1, 3)
