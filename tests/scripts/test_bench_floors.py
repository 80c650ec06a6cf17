"""Issue 16's floors as `make bench` prints them beside each figure (issue 31)."""

from __future__ import annotations

from scripts import bench_floors
from scripts.bench_floors import CALIBRATION, EVIDENCE, VERIFY, Floor, beside, verdict


def test_a_ratio_is_judged_against_its_floor() -> None:
    assert VERIFY.judged(0.45) == "≥ 0.45: pass"
    assert VERIFY.judged(0.449) == "≥ 0.45: BELOW"
    assert CALIBRATION.judged(0.2) == "≤ 0.2 s: pass"
    assert CALIBRATION.judged(0.21) == "≤ 0.2 s: BELOW"
    assert verdict(None, 0.01) == ""


def test_a_figure_is_printed_beside_its_baseline_ratio_and_floor() -> None:
    assert beside(22_000, 100_000, EVIDENCE) == "22,000 | 100,000 | 0.22 | ≥ 0.22: pass"
    assert beside(21_000, 100_000, EVIDENCE) == "21,000 | 100,000 | 0.21 | ≥ 0.22: BELOW"
    assert beside(1_000, 2_000, None) == "1,000 | 2,000 | 0.50 | "


def test_the_floors_are_issue_16s_ratios_as_decided() -> None:
    floors = {name: value for name, value in vars(bench_floors).items() if isinstance(value, Floor)}
    assert {name: (f.bound, f.at_most) for name, f in floors.items()} == {
        "VERIFY": (0.45, False),
        "ONE_CALL_APPEND": (0.6, False),
        "REBUILD_STORED": (0.18, False),
        "REBUILD_FOLD": (0.29, False),
        "EVIDENCE": (0.22, False),
        "CALIBRATION": (0.2, True),
    }
