"""SI-IQ section 2 against hand-computed values."""

from __future__ import annotations

import math

import pytest

from domain.siiq.transform import effective_n, transform


def test_transform_of_a_score_inside_the_range() -> None:
    # s = 0.625 on a 4-choice test (g = 0.25, c = 1) of n = 198 questions
    t = transform([0.625], [0.25], [1.0], [198])
    p = (0.625 - 0.25) / 0.75  # 0.5
    p_star = (p * 198 + 0.5) / 199  # 0.5
    assert t.p[0] == pytest.approx(0.5)
    assert t.p_star[0] == pytest.approx(p_star)
    assert t.y[0] == pytest.approx(0.0, abs=1e-15)
    assert t.s_star[0] == pytest.approx(0.625)
    v = 0.625 * 0.375 * 198 / (199**2 * 0.75**2 * 0.5**2 * 0.5**2)
    assert t.v[0] == pytest.approx(v)
    assert t.v[0] == pytest.approx(0.0333325, abs=1e-7)  # 46.40625 / 1392.2207


def test_a_score_below_chance_is_clipped_to_0_and_keeps_a_finite_variance() -> None:
    t = transform([0.1], [0.25], [1.0], [100])
    assert t.p[0] == 0.0
    assert t.p_star[0] == pytest.approx(0.5 / 101)
    assert t.y[0] == pytest.approx(math.log((0.5 / 101) / (1 - 0.5 / 101)))
    assert t.s_star[0] == pytest.approx(0.25 + 0.75 * 0.5 / 101)
    p_star = 0.5 / 101
    s_star = 0.25 + 0.75 * p_star
    expected_v = s_star * (1 - s_star) * 100 / (101**2 * 0.75**2 * p_star**2 * (1 - p_star) ** 2)
    assert t.v[0] == pytest.approx(expected_v)
    assert math.isfinite(t.v[0])


def test_a_score_above_the_ceiling_is_clipped_to_1() -> None:
    t = transform([0.97], [0.0], [0.9], [50])
    assert t.p[0] == 1.0
    assert t.p_star[0] == pytest.approx(50.5 / 51)
    assert t.y[0] == pytest.approx(math.log(50.5 / 0.5))
    assert t.s_star[0] == pytest.approx(0.9 * 50.5 / 51)


def test_effective_n_from_a_standard_error() -> None:
    assert effective_n(0.8, 0.02) == pytest.approx(400.0)
    assert effective_n(0.5, 0.05) == pytest.approx(100.0)
