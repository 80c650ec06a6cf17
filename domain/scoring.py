"""The scoring rubric, out of 100 (methodology section 8).

Scores are exact fractions (recovery is a share of 20), so that the spread rule of section 10
compares exactly: 30% must be stable, not 30.000000000000004%.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, NamedTuple, get_args

from domain.events import Report, RunStatus, TestDepth

Outcome = Literal["pass_full", "pass_mock", "fail", "timeout"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

INSTALL, START, RECOVERY = 30, 30, 20
DEPTH: dict[TestDepth, int] = {"tier1_real": 20, "tier2_mock": 12, "tier3_none": 0}
RubricLine = Literal["install", "start", "recovery", "depth"]
RUBRIC: dict[RubricLine, int] = {
    "install": INSTALL,
    "start": START,
    "recovery": RECOVERY,
    "depth": max(DEPTH.values()),
}
"""Section 8: each line of the rubric and its most points; they add up to 100."""
UNVERIFIED = INSTALL + START + RECOVERY
"""Section 8: installed and started, nothing went wrong, not verified: 80, and still a fail."""


class ScoreLines(NamedTuple):
    """The four lines of the rubric; only recovery can be a fraction of a point."""

    install: int
    start: int
    recovery: Fraction
    depth: int

    @property
    def total(self) -> Fraction:
        return self.recovery + (self.install + self.start + self.depth)


NO_CREDIT = ScoreLines(0, 0, Fraction(0), 0)


def recovery(errors_found: int, errors_fixed: int, *, went_wrong: bool = False) -> Fraction:
    """Methodology section 8: "si nada salió mal, la recuperación de errores obtiene los 20
    completos"; otherwise the share of errors found that were fixed, out of 20. A run that did
    not install, or installed and did not start, went wrong: with no error found it recovered
    nothing (0)."""
    if errors_found:
        return Fraction(RECOVERY * errors_fixed, errors_found)
    return Fraction(0) if went_wrong else Fraction(RECOVERY)


def score_run(status: RunStatus, report: Report | None) -> ScoreLines:
    """Methodology section 8: start requires install, depth requires start, and a timeout
    scores 0 on every line."""
    if status == "timeout" or report is None:
        return NO_CREDIT
    installed = report.installed
    started = installed and report.started
    return ScoreLines(
        install=INSTALL if installed else 0,
        start=START if started else 0,
        recovery=recovery(report.errors_found, report.errors_fixed, went_wrong=not started),
        depth=DEPTH[report.test_depth] if started else 0,
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
