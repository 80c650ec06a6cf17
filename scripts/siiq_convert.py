"""Convert the real data of ../shared/data (Epoch AI's benchmark export, snapshot 2026-04) into
SI-IQ's normalised input (docs/siiq-input.md): results.csv, benchmarks.csv, reference.txt.

    python scripts/siiq_convert.py [--data ../shared/data] [--out var/siiq]

What it applies, as SI-IQ section 1 asks of a source adapter:
- which model: a row's "Model version" is matched to its Epoch AI model group ("Model name" in
  epoch_capabilities_index.csv), exactly; a version the file does not place in a group waits
  (left out), and so does one whose product words (mini, pro, VL, ...) differ from its group's;
- independence: a row whose source is the model's own developer is left out;
- the benchmarks below, with their family, area, evaluator, chance level and n; n is "exact"
  (the benchmark's question count), "effective" (the median over rows of s(1 - s) / SE^2 from
  the evaluator's standard errors) or "assumed" (100);
- configurations (the "_high" of a version) are kept as the `config` column; choosing the best
  one is the index's own rule (decision A1).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.siiq.selection import same_product
from domain.siiq.transform import effective_n

SNAPSHOT = Path("epoch") / "benchmark_data_zip_2026-04"
ASSUMED_N = 100.0


class Source(NamedTuple):
    file: str
    column: str
    scale: float  # divide by this to get a proportion
    family: str
    area: str
    evaluator: str
    chance: float
    n: float | None  # None: effective from `se_column`, or assumed when there is none
    se_column: str | None = None
    se_scale: float = 1  # divide the standard error by this to get a proportion


EPOCH = "Epoch AI"
BENCHMARKS: dict[str, Source] = {
    "gpqa_diamond": Source(
        "gpqa_diamond.csv",
        "Best score (across scorers)",
        1,
        "gpqa-diamond",
        "knowledge",
        EPOCH,
        0.25,
        198,
    ),
    "math_level_5": Source(
        "math_level_5.csv",
        "Best score (across scorers)",
        1,
        "math-level-5",
        "math",
        EPOCH,
        0.0,
        1324,
    ),
    "otis_mock_aime_2024_2025": Source(
        "otis_mock_aime_2024_2025.csv",
        "Best score (across scorers)",
        1,
        "otis-mock-aime",
        "math",
        EPOCH,
        0.0,
        45,
    ),
    "frontiermath": Source(
        "frontiermath.csv",
        "Best score (across scorers)",
        1,
        "frontiermath",
        "math",
        EPOCH,
        0.0,
        None,
        "stderr",
    ),
    "frontiermath_tier_4": Source(
        "frontiermath_tier_4.csv",
        "Best score (across scorers)",
        1,
        "frontiermath-tier-4",
        "math",
        EPOCH,
        0.0,
        None,
        "stderr",
    ),
    "swe_bench_verified": Source(
        "swe_bench_verified.csv",
        "Best score (across scorers)",
        1,
        "swe-bench-verified",
        "coding",
        EPOCH,
        0.0,
        500,
    ),
    "simpleqa_verified": Source(
        "simpleqa_verified.csv",
        "Best score (across scorers)",
        1,
        "simpleqa-verified",
        "knowledge",
        EPOCH,
        0.0,
        1000,
    ),
    "chess_puzzles": Source(
        "chess_puzzles.csv",
        "Best score (across scorers)",
        1,
        "chess-puzzles",
        "reasoning",
        EPOCH,
        0.0,
        None,
        "stderr",
    ),
    "aider_polyglot": Source(
        "aider_polyglot_external.csv",
        "Percent correct",
        100,
        "aider-polyglot",
        "coding",
        "Aider",
        0.0,
        225,
    ),
    "simplebench": Source(
        "simplebench_external.csv",
        "Score (AVG@5)",
        1,
        "simplebench",
        "reasoning",
        "SimpleBench",
        0.0,
        213,
    ),
    "terminal_bench": Source(
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
    "hle": Source(
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
    "arc_agi_1": Source(
        "arc_agi_external.csv", "Score", 1, "arc-agi-1", "reasoning", "ARC Prize", 0.0, None
    ),
    "arc_agi_2": Source(
        "arc_agi_2_external.csv", "Score", 1, "arc-agi-2", "reasoning", "ARC Prize", 0.0, 120
    ),
    "os_world": Source(
        "os_world_external.csv", "Score", 100, "os-world", "agents", "OSWorld", 0.0, 369
    ),
    "the_agent_company": Source(
        "the_agent_company_external.csv",
        "% Score",
        1,
        "the-agent-company",
        "agents",
        "TheAgentCompany",
        0.0,
        175,
    ),
    "cybench": Source(
        "cybench_external.csv", "Unguided % Solved", 1, "cybench", "agents", "Cybench", 0.0, 40
    ),
    # WeirdML's "Accuracy SE" spreads repeated runs of a few tasks, not questions: n is assumed.
    "weirdml": Source(
        "weirdml_external.csv", "Accuracy", 1, "weirdml", "coding", "WeirdML", 0.0, None
    ),
    "swe_bench_bash_only": Source(
        "swe_bench_bash.csv",
        "% Resolved",
        1,
        "swe-bench-verified",
        "coding",
        "SWE-bench (bash only)",
        0.0,
        500,
    ),
    "apex_agents": Source(
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
    "live_bench": Source(
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

# SI-IQ section 4: the frozen reference group, as the method names it.
REFERENCE = """Claude 3.7 Sonnet, Claude Haiku 4.5, Claude Opus 4, Claude Opus 4.1, Claude Opus 4.5,
Claude Sonnet 4, Claude Sonnet 4.5, DeepSeek-R1, DeepSeek-R1 (May 2025), DeepSeek-V3.2-Exp,
DeepSeek-V3 (Mar 2025), Gemini 2.5 Pro (Jun 2025), Gemini 3 Flash, Gemini 3 Pro, Gemma 3 12B,
Gemma 3 27B, Gemma 3 4B, GLM-4.7, GPT-4.1, GPT-4.1 mini, GPT-4.1 nano, GPT-5, GPT-5.1, GPT-5.2,
GPT-5 mini, GPT-5 nano, gpt-oss-120b, gpt-oss-20b, Grok 3, Grok-3 mini, Grok 4, Llama 4 Maverick,
Llama 4 Scout, Mistral Medium 3, o3, o3-mini, o4-mini, Qwen2.5-Max, Qwen3-14B,
Qwen3-235B-A22B-Thinking (Jul 2025), Qwen3-30B-A3B, Qwen3-30B-A3B-Instruct (Jul 2025), Qwen3-32B,
Qwen3-Max"""


def read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as file:
        return list(csv.DictReader(file))


def number(text: str | None) -> float | None:
    try:
        return float((text or "").strip().rstrip("%"))
    except ValueError:
        return None


def convert(data: Path, out: Path) -> Counter[str]:
    snapshot = data / SNAPSHOT
    groups = {r["Model version"]: r for r in read(snapshot / "epoch_capabilities_index.csv")}
    tally: Counter[str] = Counter()
    results, benchmarks = [], []
    for name, source in BENCHMARKS.items():
        efficient: list[float] = []
        if not (snapshot / source.file).exists():
            tally[f"{source.file} not in the snapshot"] += 1
            continue
        for row in read(snapshot / source.file):
            score = number(row.get(source.column))
            if score is None:
                tally["no score"] += 1
                continue
            score /= source.scale
            version = row["Model version"]
            group = groups.get(version, {}).get("Model name", "")
            organization = row.get("Organization", "")
            if not group or not same_product(version, group):
                tally["model version not matched to a group"] += 1
                continue
            if organization and organization.lower() in (row.get("Source") or "").lower():
                tally["reported by the model's developer"] += 1
                continue
            se = number(row.get(source.se_column)) if source.se_column else None
            if se and 0 < score < 1:
                efficient.append(effective_n(score, se / source.se_scale))
            config = version.rsplit("_", 1)[1] if "_" in version else ""
            results.append(
                [
                    group,
                    name,
                    repr(score),
                    source.evaluator,
                    groups[version]["Release date"] or row.get("Release date", ""),
                    config,
                    f"{SNAPSHOT}/{source.file}",
                ]
            )
            tally["kept"] += 1
        if source.n is not None:
            n, kind = source.n, "exact"
        elif efficient:
            n, kind = round(statistics.median(efficient), 1), "effective"
        else:
            n, kind = ASSUMED_N, "assumed"
        benchmarks.append(
            [name, source.family, source.area, source.evaluator, source.chance, 1.0, n, kind]
        )
    out.mkdir(parents=True, exist_ok=True)
    write(
        out / "results.csv",
        ["model", "benchmark", "score", "evaluator", "released", "config", "source"],
        results,
    )
    write(
        out / "benchmarks.csv",
        ["benchmark", "family", "area", "evaluator", "chance", "ceiling", "n", "n_kind"],
        benchmarks,
    )
    names = [n.strip() for n in REFERENCE.replace("\n", " ").split(",")]
    (out / "reference.txt").write_text(
        "# SI-IQ section 4, the frozen reference group\n" + "\n".join(names) + "\n"
    )
    return tally


def write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    root = Path(__file__).resolve().parents[1]
    parser.add_argument("--data", type=Path, default=root.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=root / "var" / "siiq")
    args = parser.parse_args()
    tally = convert(args.data, args.out)
    print(f"wrote {args.out}/results.csv, benchmarks.csv, reference.txt")
    for reason, count in sorted(tally.items()):
        print(f"  {reason}: {count} rows")


if __name__ == "__main__":
    main()
