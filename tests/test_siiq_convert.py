"""scripts/siiq_convert.py on files in the format of Epoch AI's export."""

from __future__ import annotations

from pathlib import Path

from domain.siiq.data import read_benchmarks, read_reference, read_results
from scripts.siiq_convert import SNAPSHOT, convert

ECI = """Model version,ECI Score,Release date,Organization,Country,Model accessibility,Training compute (FLOP),Confidence,Model name,Description,Display name
gpt-5-2025-08-07_high,150,2025-08-07,OpenAI,,,,,GPT-5,,GPT-5 (high)
gpt-5-mini-2025-08-07_high,140,2025-08-07,OpenAI,,,,,GPT-5,,filed under the wrong group
claude-opus-4-1,145,2025-08-05,Anthropic,,,,,Claude Opus 4.1,,Claude Opus 4.1
"""
GPQA = """Model version,mean_score,Best score (across scorers),Release date,Organization,Country,Training compute (FLOP),Training compute notes,stderr,Log viewer,Logs,Started at,id
gpt-5-2025-08-07_high,0.85,0.86,2025-08-07,,,,,0.025,,,2025-08-10,a
gpt-5-mini-2025-08-07_high,0.80,0.80,2025-08-07,,,,,0.028,,,2025-08-10,b
unknown-model,0.5,0.5,2025-01-01,,,,,0.03,,,2025-02-01,c
"""
AIDER = """Model version,Percent correct,Release date,Organization,Country,Training compute (FLOP),Training compute notes,Source,Source link,id
claude-opus-4-1,72.0,2025-08-05,Anthropic,,,,Aider LLM Leaderboards,,x
gpt-5-2025-08-07_high,88.0,2025-08-07,OpenAI,,,,OpenAI blog,,y
"""
HLE = """Model version,Accuracy,Release date,Organization,Country,Training compute (FLOP),Training compute notes,Name,Accuracy Standard Error,Calibration Error,Notes,id
gpt-5-2025-08-07_high,0.25,2025-08-07,OpenAI,,,,gpt-5,0.0125,50,,z
"""


def test_the_converter_matches_models_checks_independence_and_derives_n(tmp_path: Path) -> None:
    snapshot = tmp_path / "data" / SNAPSHOT
    snapshot.mkdir(parents=True)
    for name, text in (
        ("epoch_capabilities_index.csv", ECI),
        ("gpqa_diamond.csv", GPQA),
        ("aider_polyglot_external.csv", AIDER),
        ("hle_external.csv", HLE),
    ):
        (snapshot / name).write_text(text)
    tally = convert(tmp_path / "data", tmp_path / "out")
    results = read_results((tmp_path / "out" / "results.csv").read_text())
    assert [(r.model, r.benchmark, r.score, r.evaluator, r.config) for r in results] == [
        ("GPT-5", "gpqa_diamond", 0.86, "Epoch AI", "high"),
        ("Claude Opus 4.1", "aider_polyglot", 0.72, "Aider", ""),
        ("GPT-5", "hle", 0.25, "Scale AI / CAIS", "high"),
    ]
    assert tally["model version not matched to a group"] == 2  # the mini version, the unknown one
    assert tally["reported by the model's developer"] == 1  # OpenAI's own blog
    benchmarks = {
        b.benchmark: b for b in read_benchmarks((tmp_path / "out" / "benchmarks.csv").read_text())
    }
    assert (benchmarks["gpqa_diamond"].n, benchmarks["gpqa_diamond"].n_kind) == (198, "exact")
    assert (benchmarks["hle"].n, benchmarks["hle"].n_kind) == (
        1200.0,
        "effective",
    )  # .25*.75/.0125^2
    assert len(read_reference((tmp_path / "out" / "reference.txt").read_text())) == 44
