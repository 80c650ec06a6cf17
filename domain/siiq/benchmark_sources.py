"""The benchmark configuration of the index (SI-IQ sections 1 and 2): for each benchmark the one
source it is read from (Epoch AI's export, OpenRouter's GPQA Diamond run, or an evaluator's own
publication where Epoch carries no copy), the table, name and score columns, scale, family,
area, evaluator, chance level, ceiling, and n with how it is known.

n is "exact" (the benchmark's distinct question count), "effective" (the median over rows of
s(1 - s)/SE^2 from the evaluator's standard errors, section 2) or "assumed" (100); whichever
it is, never above the distinct question count where that is published ("repeated runs never
increase n").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

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
OPENROUTER_BENCHMARKS = "benchmarks"
"""The table of OpenRouter's `benchmarks` dataset (ARCHITECTURE.md, Wave 3 contract, SI-IQ)."""

NKind = Literal["exact", "effective", "assumed"]


class BenchmarkSource(NamedTuple):
    """Where one benchmark of the index is read, and what it is (section 1's one source)."""

    source: str  # the configured source: "epoch", "openrouter", "bfcl", ...
    table: str
    name_column: str
    column: str
    scale: float  # divide by this to get a proportion
    family: str
    area: str
    evaluator: str
    chance: float
    n_kind: NKind  # how n is known; "effective" falls back to "assumed" without standard errors
    questions: int | None = None  # distinct questions: n when exact, the cap on any other n
    se_column: str | None = None
    se_scale: float = 1  # divide the standard error by this to get a proportion
    ceiling: float = 1.0


def _epoch_run(table: str, family: str, area: str, questions: int | None) -> BenchmarkSource:
    """A benchmark Epoch AI runs itself (its "Best score (across scorers)", with stderr)."""
    column = "Best score (across scorers)"
    kind: NKind = "exact" if questions is not None else "effective"
    return BenchmarkSource(
        "epoch", table, VERSION, column, 1, family, area, EPOCH, 0.0, kind, questions, "stderr"
    )


def _epoch_copy(
    table: str,
    column: str,
    scale: float,
    evaluator: str,
    *,
    family: str,
    area: str,
    questions: int | None = None,
    se_column: str | None = None,
) -> BenchmarkSource:
    """An external leaderboard as Epoch AI's export copies it (the evaluator's numbers under
    Epoch's model versions)."""
    kind: NKind = "effective" if se_column else "exact" if questions else "assumed"
    return BenchmarkSource(
        "epoch",
        table,
        VERSION,
        column,
        scale,
        family,
        area,
        evaluator,
        0.0,
        kind,
        questions,
        se_column,
    )


def _bfcl(table: str, column: str, family: str, questions: int) -> BenchmarkSource:
    """A table of the Berkeley Function Calling Leaderboard's own website (BFCL V4; Epoch
    carries no copy): accuracy in percent, model names with their calling mode."""
    return BenchmarkSource(
        "bfcl", table, "Model", column, 100, family, "agents", "BFCL", 0.0, "exact", questions
    )


BENCHMARKS: dict[str, BenchmarkSource] = {
    "gpqa_diamond": _epoch_run("gpqa_diamond.csv", "gpqa-diamond", "knowledge", 198)._replace(
        chance=0.25
    ),
    "openrouter_gpqa_diamond": BenchmarkSource(
        "openrouter",
        OPENROUTER_BENCHMARKS,
        "model_permaslug",
        "score",
        1,
        "gpqa-diamond",  # Epoch AI's 198 questions, run again independently (section 1)
        "knowledge",
        "OpenRouter",
        0.25,
        "exact",
        198,
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
    # Aider's polyglot results through Epoch's copy, never Aider's YAML as well (decisions.md).
    "aider_polyglot": _epoch_copy(
        "aider_polyglot_external.csv",
        "Percent correct",
        100,
        "Aider",
        family="aider-polyglot",
        area="coding",
        questions=225,
    ),
    "simplebench": _epoch_copy(
        "simplebench_external.csv",
        "Score (AVG@5)",
        1,
        "SimpleBench",
        family="simplebench",
        area="reasoning",
        questions=213,
    ),
    # Terminal-Bench 2.0 has 89 tasks; its standard errors spread repeated trials of them.
    "terminal_bench": _epoch_copy(
        "terminalbench_external.csv",
        "Accuracy mean",
        1,
        "Terminal-Bench",
        family="terminal-bench",
        area="agents",
        questions=89,
        se_column="Accuracy SE",
    ),
    "hle": _epoch_copy(
        "hle_external.csv",
        "Accuracy",
        1,
        "Scale AI / CAIS",
        family="hle",
        area="knowledge",
        se_column="Accuracy Standard Error",
    ),
    "arc_agi_1": _epoch_copy(
        "arc_agi_external.csv", "Score", 1, "ARC Prize", family="arc-agi-1", area="reasoning"
    ),
    "arc_agi_2": _epoch_copy(
        "arc_agi_2_external.csv",
        "Score",
        1,
        "ARC Prize",
        family="arc-agi-2",
        area="reasoning",
        questions=120,
    ),
    "os_world": _epoch_copy(
        "os_world_external.csv",
        "Score",
        100,
        "OSWorld",
        family="os-world",
        area="agents",
        questions=369,
    ),
    "the_agent_company": _epoch_copy(
        "the_agent_company_external.csv",
        "% Score",
        1,
        "TheAgentCompany",
        family="the-agent-company",
        area="agents",
        questions=175,
    ),
    "cybench": _epoch_copy(
        "cybench_external.csv",
        "Unguided % Solved",
        1,
        "Cybench",
        family="cybench",
        area="agents",
        questions=40,
    ),
    # WeirdML's "Accuracy SE" spreads repeated runs of a few tasks, not questions: n is assumed.
    "weirdml": _epoch_copy(
        "weirdml_external.csv", "Accuracy", 1, "WeirdML", family="weirdml", area="coding"
    ),
    "swe_bench_bash_only": _epoch_copy(
        "swe_bench_bash.csv",
        "% Resolved",
        1,
        "SWE-bench (bash only)",
        family="swe-bench-verified",
        area="coding",
        questions=500,
    ),
    "apex_agents": _epoch_copy(
        "apex_agents_external.csv",
        "Pass@1 score",
        1,
        "APEX-Agents",
        family="apex-agents",
        area="agents",
        se_column="Pass@1 Standard Error",
    )._replace(se_scale=100),
    "live_bench": _epoch_copy(
        "live_bench_external.csv",
        "Global average",
        100,
        "LiveBench",
        family="live-bench",
        area="reasoning",
    ),
    # BFCL V4's four parts, each its own question set (bfcl-eval 2025.10.27): non-live 1,390
    # (simple 550, multiple, parallel and parallel-multiple 200 each, irrelevance 240); live
    # 2,251; multi-turn 800 (four categories of 200); agentic 255 distinct questions (100 web
    # searches run twice, with and without snippets, and 155 memory questions run on three
    # backends: 765 runs, 255 questions).
    "bfcl_non_live": _bfcl("data_non_live.csv", "Non-Live Overall Acc", "bfcl-non-live", 1390),
    "bfcl_live": _bfcl("data_live.csv", "Live Overall Acc", "bfcl-live", 2251),
    "bfcl_multi_turn": _bfcl(
        "data_multi_turn.csv", "Multi Turn Overall Acc", "bfcl-multi-turn", 800
    ),
    "bfcl_agentic": _bfcl("data_agentic.csv", "Agentic Overall Acc", "bfcl-agentic", 255),
}

BY_TABLE: dict[tuple[str, str], tuple[str, BenchmarkSource]] = {
    (s.source, s.table): (n, s) for n, s in BENCHMARKS.items()
}
INDEX_SOURCES: frozenset[str] = frozenset(s.source for s in BENCHMARKS.values())
"""The sources whose rows the index reads (the others are fetched for /status.json only)."""


def configuration_problem(name: str, source: BenchmarkSource) -> str | None:
    """Section 2: a benchmark's n is known one way: "exact" needs its question count,
    "effective" the column of the evaluator's standard errors; "assumed" neither."""
    if source.n_kind == "exact" and not source.questions:
        return f"{name}: n is exact but no question count is given"
    if source.n_kind == "effective" and source.se_column is None:
        return f"{name}: n is effective but no standard-error column is given"
    if source.n_kind == "assumed" and source.se_column is not None:
        return f"{name}: n is assumed though the evaluator's standard errors are read"
    return None


def checked_configuration(benchmarks: dict[str, BenchmarkSource]) -> dict[str, BenchmarkSource]:
    """The configuration as the index may read it: any benchmark whose n cannot be known the
    way it says stops the import, naming it."""
    problems = [p for n, s in benchmarks.items() if (p := configuration_problem(n, s))]
    if problems:
        raise ValueError("SI-IQ benchmark configuration: " + "; ".join(problems))
    return benchmarks


BENCHMARKS = checked_configuration(BENCHMARKS)


def other_run(benchmark: str) -> str | None:
    """Section 8: the other benchmark of the index that ran the same questions from another
    source (GPQA Diamond by Epoch AI and by OpenRouter), which confirms a held value."""
    source = BENCHMARKS[benchmark]
    others = [
        n
        for n, s in BENCHMARKS.items()
        if n != benchmark and s.family == source.family and s.source != source.source
    ]
    return others[0] if len(others) == 1 else None


def row_identity(benchmark: str, row: Mapping[str, object]) -> str:
    """The model's name as the row's source writes it (Epoch's version, BFCL's model, an
    OpenRouter permaslug): the identity the cross-check confirms. A benchmark no longer
    configured was Epoch's (the only source before others were read)."""
    source = BENCHMARKS.get(benchmark)
    return str(row.get(source.name_column if source else VERSION) or "").strip()


def required_columns(table: str, source: str = "epoch") -> tuple[str, ...]:
    """The columns a source's table must have for the index to read it: the name column of a
    benchmark's table, and its score column where the file holds that benchmark alone (in
    Epoch's export, which holds many, a score column renamed or gone freezes its benchmark
    alone, section 8); Epoch's groups table's version, group and release date; () for a table
    the index does not read."""
    if source == "epoch" and table == GROUPS_TABLE:
        return GROUP_COLUMNS
    if (source, table) in BY_TABLE:
        found = BY_TABLE[(source, table)][1]
        if source == "epoch":
            return (found.name_column,)
        return (found.name_column, found.column)
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


def distinct_question_cap(n: float, kind: NKind, questions: int | None) -> tuple[float, NKind]:
    """Section 2: n counts distinct questions, and running the same questions again never raises
    it: an effective or assumed n above the published question count is that count."""
    if questions is not None and n > questions:
        return float(questions), "exact"
    return n, kind


def definition(name: str, source: BenchmarkSource, rows: Sequence[Row]) -> Benchmark:
    """The benchmark as the index uses it; n from its count, its standard errors or assumed,
    never above its distinct question count."""
    kind: NKind
    if source.n_kind == "exact" and source.questions:
        n, kind = float(source.questions), "exact"
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
        n, kind = distinct_question_cap(n, kind, source.questions)
    return Benchmark(
        benchmark=name,
        family=source.family,
        area=source.area,
        evaluator=source.evaluator,
        chance=source.chance,
        ceiling=source.ceiling,
        n=n,
        n_kind=kind,
    )
