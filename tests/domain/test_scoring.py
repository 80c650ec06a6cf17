"""Methodology section 8: the rubric and every case it resolves."""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.events import Report
from domain.scoring import RUBRIC, UNVERIFIED, outcome, recovery, score_run


def report(**overrides: object) -> Report:
    fields: dict[str, object] = {
        "installed": True,
        "started": True,
        "errors_found": 0,
        "errors_fixed": 0,
        "test_depth": "tier1_real",
    }
    return Report(**(fields | overrides))  # type: ignore[arg-type]


def test_score_run_full_marks() -> None:
    lines = score_run("finished", report())
    assert lines == (30, 30, 20, 20)
    assert lines.total == 100
    assert outcome("finished", report()) == "pass_full"


def test_recovery_with_no_error_found_is_the_full_20() -> None:
    assert recovery(0, 0) == 20


def test_recovery_with_no_error_found_is_0_when_something_went_wrong() -> None:
    assert recovery(0, 0, went_wrong=True) == 0
    assert recovery(2, 1, went_wrong=True) == 10  # errors found: the share, as ever
    not_installed = report(installed=False, started=False, test_depth="tier3_none")
    not_started = report(started=False, test_depth="tier3_none")
    unverified = report(test_depth="tier3_none")
    assert score_run("finished", not_installed).total == 0
    assert score_run("finished", not_started).total == 30
    assert score_run("finished", unverified).total == 80


def test_recovery_is_the_share_fixed_out_of_20() -> None:
    assert recovery(3, 2) == Fraction(40, 3)
    assert score_run("finished", report(errors_found=3, errors_fixed=2)).total == Fraction(280, 3)


def test_start_requires_install() -> None:
    lines = score_run("finished", report(installed=False, started=True))
    assert (lines.install, lines.start, lines.depth) == (0, 0, 0)
    assert lines.total == 0  # nothing found and nothing recovered: it went wrong
    assert outcome("finished", report(installed=False, started=True)) == "fail"


def test_depth_requires_start() -> None:
    lines = score_run("finished", report(started=False, test_depth="tier1_real"))
    assert (lines.install, lines.start, lines.depth) == (30, 0, 0)
    assert outcome("finished", report(started=False)) == "fail"


def test_installed_and_started_but_unverified_scores_80_and_fails() -> None:
    unverified = report(test_depth="tier3_none")
    assert score_run("finished", unverified).total == 80
    assert outcome("finished", unverified) == "fail"


def test_verified_with_mocks_scores_92_and_passes_with_mocks() -> None:
    mocked = report(test_depth="tier2_mock")
    assert score_run("finished", mocked).total == 92
    assert outcome("finished", mocked) == "pass_mock"


@pytest.mark.parametrize("given", [report(), None])
def test_a_timeout_scores_0_on_every_line(given: Report | None) -> None:
    assert score_run("timeout", given) == (0, 0, 0, 0)
    assert outcome("timeout", given) == "timeout"


def test_the_rubric_s_lines_are_what_score_run_gives_at_most() -> None:
    best = score_run("finished", report())
    assert RUBRIC == {"install": 30, "start": 30, "recovery": 20, "depth": 20}
    assert tuple(RUBRIC.values()) == best
    assert sum(RUBRIC.values()) == best.total == 100


def test_unverified_is_what_an_installed_started_unverified_run_scores() -> None:
    lines = score_run("finished", report(test_depth="tier3_none"))
    assert lines.total == UNVERIFIED == 80
    assert outcome("finished", report(test_depth="tier3_none")) == "fail"
