"""Where each benchmark of the index is read (SI-IQ sections 1 and 2): the table of Epoch AI's
export, its score column and scale, and the benchmark's family, area, evaluator, chance level
and number of questions.

n is "exact" (the benchmark's question count), "effective" (the median over rows of
s(1 - s)/SE^2 from the evaluator's standard errors, section 2) or "assumed" (100).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from domain.siiq.records import Benchmark
from domain.siiq.source_format import Row
from domain.siiq.transform import effective_n

EPOCH = "Epoch AI"
ASSUMED_N = 100.0
GROUPS_TABLE = "epoch_capabilities_index.csv"
VERSION = "Model version"
GROUP = "Model name"
RELEASED = "Release date"
ORGANIZATION = "Organization"
GROUP_COLUMNS = (VERSION, GROUP, RELEASED)


class BenchmarkSource(NamedTuple):
    table: str
    column: str
    scale: float  # divide by this to get a proportion
    family: str
    area: str
    evaluator: str
    chance: float
    n: float | None  # None: effective from `se_column`, or assumed when there is none
    se_column: str | None = None
    se_scale: float = 1  # divide the standard error by this to get a proportion


def _epoch_run(table: str, family: str, area: str, n: float | None) -> BenchmarkSource:
    """A benchmark Epoch AI runs itself (its "Best score (across scorers)", with stderr)."""
    column = "Best score (across scorers)"
    return BenchmarkSource(table, column, 1, family, area, EPOCH, 0.0, n, "stderr")


BENCHMARKS: dict[str, BenchmarkSource] = {
    "gpqa_diamond": _epoch_run("gpqa_diamond.csv", "gpqa-diamond", "knowledge", 198)._replace(
        chance=0.25
    ),
    "math_level_5": _epoch_run("math_level_5.csv", "math-level-5", "math", 1324),
    "otis_mock_aime_2024_2025": _epoch_run(
        "otis_mock_aime_2024_2025.csv", "otis-mock-aime", "math", 45
    ),
    "frontiermath": _epoch_run("frontiermath.csv", "frontiermath", "math", None),
    "frontiermath_tier_4": _epoch_run(
        "frontiermath_tier_4.csv", "frontiermath-tier-4", "math", None
    ),
    "swe_bench_verified": _epoch_run("swe_bench_verified.csv", "swe-bench-verified", "coding", 500),
    "simpleqa_verified": _epoch_run(
        "simpleqa_verified.csv", "simpleqa-verified", "knowledge", 1000
    ),
    "chess_puzzles": _epoch_run("chess_puzzles.csv", "chess-puzzles", "reasoning", None),
    "aider_polyglot": BenchmarkSource(
        "aider_polyglot_external.csv",
        "Percent correct",
        100,
        "aider-polyglot",
        "coding",
        "Aider",
        0.0,
        225,
    ),
    "simplebench": BenchmarkSource(
        "simplebench_external.csv",
        "Score (AVG@5)",
        1,
        "simplebench",
        "reasoning",
        "SimpleBench",
        0.0,
        213,
    ),
    "terminal_bench": BenchmarkSource(
        "terminalbench_external.csv",
        "Accuracy mean",
        1,
        "terminal-bench",
        "agents",
        "Terminal-Bench",
        0.0,
        None,
        "Accuracy SE",
    ),
    "hle": BenchmarkSource(
        "hle_external.csv",
        "Accuracy",
        1,
        "hle",
        "knowledge",
        "Scale AI / CAIS",
        0.0,
        None,
        "Accuracy Standard Error",
    ),
    "arc_agi_1": BenchmarkSource(
        "arc_agi_external.csv", "Score", 1, "arc-agi-1", "reasoning", "ARC Prize", 0.0, None
    ),
    "arc_agi_2": BenchmarkSource(
        "arc_agi_2_external.csv", "Score", 1, "arc-agi-2", "reasoning", "ARC Prize", 0.0, 120
    ),
    "os_world": BenchmarkSource(
        "os_world_external.csv", "Score", 100, "os-world", "agents", "OSWorld", 0.0, 369
    ),
    "the_agent_company": BenchmarkSource(
        "the_agent_company_external.csv",
        "% Score",
        1,
        "the-agent-company",
        "agents",
        "TheAgentCompany",
        0.0,
        175,
    ),
    "cybench": BenchmarkSource(
        "cybench_external.csv", "Unguided % Solved", 1, "cybench", "agents", "Cybench", 0.0, 40
    ),
    # WeirdML's "Accuracy SE" spreads repeated runs of a few tasks, not questions: n is assumed.
    "weirdml": BenchmarkSource(
        "weirdml_external.csv", "Accuracy", 1, "weirdml", "coding", "WeirdML", 0.0, None
    ),
    "swe_bench_bash_only": BenchmarkSource(
        "swe_bench_bash.csv",
        "% Resolved",
        1,
        "swe-bench-verified",
        "coding",
        "SWE-bench (bash only)",
        0.0,
        500,
    ),
    "apex_agents": BenchmarkSource(
        "apex_agents_external.csv",
        "Pass@1 score",
        1,
        "apex-agents",
        "agents",
        "APEX-Agents",
        0.0,
        None,
        "Pass@1 Standard Error",
        se_scale=100,
    ),
    "live_bench": BenchmarkSource(
        "live_bench_external.csv",
        "Global average",
        100,
        "live-bench",
        "reasoning",
        "LiveBench",
        0.0,
        None,
    ),
}

BY_TABLE: dict[str, tuple[str, BenchmarkSource]] = {s.table: (n, s) for n, s in BENCHMARKS.items()}


def required_columns(table: str) -> tuple[str, ...]:
    """The columns a table of Epoch's export must have for the index to read it: the version
    column of a benchmark's table (its score column renamed or gone freezes that benchmark
    alone, section 8), the version, group and release date of the groups table; () for a
    table the index does not read."""
    if table == GROUPS_TABLE:
        return GROUP_COLUMNS
    if table in BY_TABLE:
        return (VERSION,)
    return ()


def number(text: object) -> float | None:
    """A cell as a number: a JSON number, or text such as "41.8" or "77.47%"; else None."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        value = float(text)
    else:
        try:
            value = float(str(text or "").strip().rstrip("%"))
        except ValueError:
            return None
    return value if math.isfinite(value) else None


def score_of(source: BenchmarkSource, row: Mapping[str, object]) -> float | None:
    """Section 2: the score as a proportion, from the benchmark's own column and scale."""
    value = number(row.get(source.column))
    return None if value is None else value / source.scale


def definition(name: str, source: BenchmarkSource, rows: Sequence[Row]) -> Benchmark:
    """The benchmark as the index uses it; n from its count, its standard errors or assumed."""
    if source.n is not None:
        n, kind = float(source.n), "exact"
    else:
        effective = []
        for row in rows:
            score = score_of(source, row)
            se = number(row.get(source.se_column)) if source.se_column else None
            if score is not None and se and 0 < score < 1:
                effective.append(effective_n(score, se / source.se_scale))
        if effective:
            n, kind = round(statistics.median(effective), 1), "effective"
        else:
            n, kind = ASSUMED_N, "assumed"
    return Benchmark(
        benchmark=name,
        family=source.family,
        area=source.area,
        evaluator=source.evaluator,
        chance=source.chance,
        ceiling=1.0,
        n=n,
        n_kind=kind,
    )
