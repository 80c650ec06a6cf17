"""SI-IQ sections 1 and 2: the benchmark configuration the index reads (one source per benchmark,
its family, chance, ceiling, n and how n is known) and the intake of other sources' rows."""

from __future__ import annotations

from datetime import date

import pytest

from adapters.sources import PARSERS
from adapters.sources.tables import csv_table
from domain.siiq.benchmark_sources import (
    BENCHMARKS,
    INDEX_SOURCES,
    checked_configuration,
    configuration_problem,
    definition,
    distinct_question_cap,
    other_run,
    required_columns,
    row_identity,
)
from domain.siiq.intake import NO_COVERING, NOT_MEDIAN, SnapshotFile, index_intake
from domain.siiq.matching import Version
from tests.reference import EPOCH_APR as APR


def test_every_benchmark_names_one_known_source_and_how_its_n_is_known() -> None:
    assert {"epoch", "openrouter", "bfcl"} == INDEX_SOURCES
    assert set(PARSERS) >= INDEX_SOURCES
    assert [n for n, s in BENCHMARKS.items() if configuration_problem(n, s)] == []
    tables = [(s.source, s.table) for s in BENCHMARKS.values()]
    assert len(tables) == len(set(tables))  # a table feeds one benchmark
    bad = BENCHMARKS["bfcl_live"]._replace(n_kind="exact", questions=None)
    assert configuration_problem("x", bad) == "x: n is exact but no question count is given"
    bad = BENCHMARKS["hle"]._replace(n_kind="assumed")
    assert configuration_problem("x", bad) == (
        "x: n is assumed though the evaluator's standard errors are read"
    )


def test_openrouters_gpqa_run_is_the_same_question_family_from_another_source() -> None:
    epoch, openrouter = BENCHMARKS["gpqa_diamond"], BENCHMARKS["openrouter_gpqa_diamond"]
    assert (openrouter.family, openrouter.questions, openrouter.chance) == (
        epoch.family,
        epoch.questions,
        epoch.chance,
    )
    assert (openrouter.source, epoch.source) == ("openrouter", "epoch")
    assert other_run("gpqa_diamond") == "openrouter_gpqa_diamond"
    assert other_run("openrouter_gpqa_diamond") == "gpqa_diamond"
    # SWE-bench's two tables share questions but come from one source: no other run.
    assert other_run("swe_bench_verified") is None
    assert required_columns("benchmarks", "openrouter") == ("model_permaslug", "score")
    assert required_columns("data_live.csv", "bfcl") == ("Model", "Live Overall Acc")
    assert required_columns("data_live.csv") == ()  # no Epoch table of that name


def test_distinct_question_cap() -> None:
    assert distinct_question_cap(285.6, "effective", 89) == (89.0, "exact")
    assert distinct_question_cap(47.0, "effective", 48) == (47.0, "effective")
    assert distinct_question_cap(100.0, "assumed", 48) == (48.0, "exact")
    assert distinct_question_cap(650.3, "effective", None) == (650.3, "effective")


def test_terminal_bench_repeated_trials_never_raise_n_above_its_89_tasks() -> None:
    table = csv_table(
        "terminalbench_external.csv", (APR / "terminalbench_external.csv").read_bytes()
    )
    source = BENCHMARKS["terminal_bench"]
    uncapped = definition("terminal_bench", source._replace(questions=None), table.rows)
    # Over every row its standard errors give 283.2 (285.6 over the matched ones): more than
    # three times its tasks, because they spread repeated trials of the same 89 tasks.
    assert (uncapped.n, uncapped.n_kind) == (283.2, "effective")
    capped = definition("terminal_bench", source, table.rows)
    assert (capped.n, capped.n_kind) == (89.0, "exact")


GROUPS = [
    Version(version="gpt-5-2025-08-07_high", group="GPT-5", released=date(2025, 8, 7)),
    Version(version="gpt-5-chat", group="GPT-5", released=date(2025, 8, 20)),
    Version(version="o3-2025-04-16_high", group="o3", released=date(2025, 4, 16)),
]


def provider(slug: str, name: str, score: float, attempted: int, own: bool = False) -> dict:
    return {
        "date": "2026-11-30",
        "benchmark": "gpqa_diamond",
        "model_permaslug": slug,
        "model_name": slug,
        "provider": name,
        "own_hosting": own,
        "score": score,
        "questions": 198,
        "questions_attempted": attempted,
        "runs": 1,
    }


def test_the_intake_reads_each_benchmark_from_its_own_source() -> None:
    openrouter = [
        provider("openai/gpt-5-2025-08-07", "Azure", 0.84, 198),
        provider("openai/gpt-5-2025-08-07", "OpenAI", 0.85, 198, own=True),
        provider("openai/o3-2025-04-16", "OpenAI", 0.80, 150, own=True),  # covers 76%
    ]
    bfcl = [{"Rank": "1", "Model": "GPT-5-2025-08-07 (FC)", "Live Overall Acc": "80.50%"}]
    tables = {("openrouter", "benchmarks"): openrouter, ("bfcl", "data_live.csv"): bfcl}
    where = {
        ("openrouter", "benchmarks"): SnapshotFile(url="https://o/b.json", sha256="a" * 64),
        ("bfcl", "data_live.csv"): SnapshotFile(url="https://g/data_live.csv", sha256="b" * 64),
    }
    intake = index_intake([GROUPS], tables, where)
    results = {(r.benchmark, r.model): r for r in intake.results}
    gpqa = results["openrouter_gpqa_diamond", "GPT-5"]
    assert (gpqa.score, gpqa.config, gpqa.evaluator) == (0.85, "OpenAI", "OpenRouter")
    live = results["bfcl_live", "GPT-5"]
    assert (live.score, live.config, live.evaluator) == (0.805, "FC", "BFCL")
    assert live.released == date(2025, 8, 7)  # the group's first version's release
    assert ("openrouter_gpqa_diamond", "o3") not in results
    assert intake.left_out[NOT_MEDIAN] == 1
    assert intake.left_out[NO_COVERING] == 1
    lines = {(e.source, e.benchmark): e for e in intake.evidence}
    assert lines["openrouter", "openrouter_gpqa_diamond"].row["provider"] == "OpenAI"
    assert lines["openrouter", "openrouter_gpqa_diamond"].sha256 == "a" * 64
    assert lines["bfcl", "bfcl_live"].url == "https://g/data_live.csv"
    assert intake.left_out["gpqa_diamond.csv not in the snapshot"] == 1


def test_a_benchmark_whose_n_cannot_be_known_as_configured_stops_the_import() -> None:
    broken = {"x": BENCHMARKS["hle"]._replace(se_column=None)}
    with pytest.raises(ValueError, match="x: n is effective but no standard-error column"):
        checked_configuration(broken)


def test_row_identity_is_the_name_as_the_rows_source_writes_it() -> None:
    assert row_identity("bfcl_live", {"Model": " Qwen3-14B (FC) "}) == "Qwen3-14B (FC)"
    row = {"model_permaslug": "openai/gpt-5-2025-08-07", "model_name": "OpenAI: GPT-5"}
    assert row_identity("openrouter_gpqa_diamond", row) == "openai/gpt-5-2025-08-07"
    assert row_identity("gone_benchmark", {"Model version": "o3_high"}) == "o3_high"
