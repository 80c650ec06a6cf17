"""The scoring rubric, out of 100 (methodology section 8).

Scores are exact fractions (recovery is a share of 20), so that the spread rule of section 10
compares exactly: 30% must be stable, not 30.000000000000004%.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, NamedTuple

from domain.events import Report, RunStatus, TestDepth

Outcome = Literal["pass_full", "pass_mock", "fail", "timeout"]

INSTALL, START, RECOVERY = Fraction(30), Fraction(30), Fraction(20)
DEPTH: dict[TestDepth, Fraction] = {
    "tier1_real": Fraction(20),
    "tier2_mock": Fraction(12),
    "tier3_none": Fraction(0),
}


class ScoreLines(NamedTuple):
    """The four lines of the rubric."""

    install: Fraction
    start: Fraction
    recovery: Fraction
    depth: Fraction

    @property
    def total(self) -> Fraction:
        return self.install + self.start + self.recovery + self.depth


NO_CREDIT = ScoreLines(Fraction(0), Fraction(0), Fraction(0), Fraction(0))


def recovery(errors_found: int, errors_fixed: int) -> Fraction:
    """Methodology section 8: the share of errors found that were fixed, out of 20; with no
    error found the full 20, since a smooth install measures the project, not the agent."""
    if errors_found == 0:
        return RECOVERY
    return RECOVERY * errors_fixed / errors_found


def score_run(status: RunStatus, report: Report | None) -> ScoreLines:
    """Methodology section 8: start requires install, depth requires start, and a timeout
    scores 0 on every line."""
    if status == "timeout" or report is None:
        return NO_CREDIT
    installed = report.installed
    started = installed and report.started
    return ScoreLines(
        install=INSTALL if installed else Fraction(0),
        start=START if started else Fraction(0),
        recovery=recovery(report.errors_found, report.errors_fixed),
        depth=DEPTH[report.test_depth] if started else Fraction(0),
    )


def outcome(status: RunStatus, report: Report | None) -> Outcome:
    """Methodology section 8: pass_full, pass_mock, fail or timeout, derived from the report;
    installed and started but unverified is a fail (it scores 80)."""
    if status == "timeout":
        return "timeout"
    if report is None or not (report.installed and report.started):
        return "fail"
    if report.test_depth == "tier1_real":
        return "pass_full"
    if report.test_depth == "tier2_mock":
        return "pass_mock"
    return "fail"


def passed(result: Outcome) -> bool:
    """Methodology section 8: pass_full and pass_mock are passes; fail and timeout are not."""
    return result in ("pass_full", "pass_mock")
