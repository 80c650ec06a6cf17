"""SI-IQ section 1 and decisions A1 to A3: reading and selecting the inputs."""

from __future__ import annotations

import math
from datetime import date

import pytest

from domain.siiq.data import InputError, read_benchmarks, read_reference, read_results, select
from domain.siiq.records import Benchmark, Result

BENCHMARKS = """benchmark,family,area,evaluator,chance,ceiling,n,n_kind
gpqa,gpqa,reasoning,Epoch AI,0.25,1,198,exact
broken,broken,reasoning,Epoch AI,0.5,0.5,100,assumed
nowhere,nowhere,cooking,Epoch AI,0,1,100,assumed
"""
RESULTS = """model,benchmark,score,evaluator,released,config,source
m1,gpqa,0.60,Epoch AI,2025-04-01,low,
m1,gpqa,0.70,Epoch AI,2025-04-01,high,
m1,gpqa,0.70,Epoch AI,2025-04-01,xhigh,
m2,gpqa,not a number,Epoch AI,2025-04-01,,
m2,unknown,0.5,Epoch AI,2025-04-01,,
m3,broken,0.6,Epoch AI,,,
"""


def test_the_best_published_configuration_counts_first_on_ties() -> None:
    selection = select(read_results(RESULTS), read_benchmarks(BENCHMARKS))
    assert [(r.model, r.benchmark, r.score, r.config) for r in selection.results] == [
        ("m1", "gpqa", 0.70, "high")
    ]


def test_rows_and_benchmarks_left_out_are_counted_and_named() -> None:
    selection = select(read_results(RESULTS), read_benchmarks(BENCHMARKS))
    assert selection.ignored_rows == {
        "benchmark with an invalid configuration": 1,
        "score not a finite number": 1,
        "unknown benchmark": 1,
    }
    assert selection.invalid_benchmarks == ["broken", "nowhere"]
    assert [b.benchmark for b in selection.benchmarks] == ["gpqa"]


@pytest.mark.parametrize(
    ("chance", "ceiling", "n", "area"),
    [
        (0.5, 0.5, 10, "math"),
        (0.6, 0.5, 10, "math"),
        (0, 1, 0, "math"),
        (0, 1, math.nan, "math"),
        (0, 1, 10, "vision"),
    ],
)
def test_invalid_configurations(chance: float, ceiling: float, n: float, area: str) -> None:
    benchmark = Benchmark(
        benchmark="b",
        family="b",
        area=area,
        evaluator="e",
        chance=chance,
        ceiling=ceiling,
        n=n,
        n_kind="assumed",
    )
    assert benchmark.invalid_configuration()


def test_the_reference_file() -> None:
    assert read_reference("\ufeff# the 2025 group\n GPT-5 \n\nClaude Opus 4\n") == [
        "GPT-5",
        "Claude Opus 4",
    ]


def test_a_results_file_without_its_columns_is_refused() -> None:
    with pytest.raises(InputError, match="results CSV: missing column"):
        read_results("model,benchmark\nm,b\n")


def test_release_dates_parse_or_are_unknown() -> None:
    (result,) = read_results("model,benchmark,score,evaluator,released\nm,b,0.5,e,someday\n")
    assert result == Result(model="m", benchmark="b", score=0.5, evaluator="e", released=None)
    (result,) = read_results("model,benchmark,score,evaluator,released\nm,b,0.5,e,2025-02-03\n")
    assert result.released == date(2025, 2, 3)
