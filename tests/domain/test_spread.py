"""Methodology section 10: spread and instability, with both edge cases."""

from __future__ import annotations

import math
from fractions import Fraction

from domain.spread import UNSTABLE_ABOVE, is_unstable, middle, spread


def scores(*values: float) -> list[Fraction]:
    return [Fraction(v) for v in values]


def test_spread_is_the_range_over_the_middle() -> None:
    assert middle(scores(80, 92, 100)) == 92
    assert spread(scores(80, 92, 100)) == Fraction(20 * 100, 92)
    assert not is_unstable(scores(80, 92, 100))


def test_exactly_30_percent_is_stable() -> None:
    assert spread(scores(70, 100, 100)) == 30
    assert not is_unstable(scores(70, 100, 100))


def test_exactly_30_percent_with_fractional_scores_is_stable() -> None:
    # 40/3 is a recovery of 2 errors fixed out of 3; float arithmetic would give 30.000000000000004
    third = Fraction(280, 3)
    assert spread([third * Fraction(7, 10), third, third]) == 30
    assert not is_unstable([third * Fraction(7, 10), third, third])


def test_just_above_30_percent_is_unstable() -> None:
    assert is_unstable(scores(69, 100, 100))


def test_a_middle_of_0_with_a_run_above_0_is_unbounded_and_unstable() -> None:
    assert spread(scores(0, 0, 40)) == math.inf
    assert is_unstable(scores(0, 0, 40))


def test_three_zeros_have_spread_0_and_are_stable() -> None:
    assert spread(scores(0, 0, 0)) == 0
    assert not is_unstable(scores(0, 0, 0))


def test_the_middle_of_an_even_count_is_the_mean_of_the_two_middle_values() -> None:
    assert middle(scores(0, 50, 92, 100)) == 71


def test_the_threshold_the_methodology_page_states_is_the_one_is_unstable_applies() -> None:
    assert UNSTABLE_ABOVE == 30
    assert not is_unstable([Fraction(70), Fraction(100), Fraction(100)])  # exactly 30%
