"""Calibrate SI-IQ on the real data of ../shared/data end to end and write
docs/siiq-real-data.md: the method's own outcome, and a diagnostic run that shows what the data
gives once the reference models the data lacks are set aside.

    python scripts/siiq_real_data.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.siiq.calibration import eligible
from domain.siiq.data import Observations, read_benchmarks, read_reference, read_results, select
from domain.siiq.index import IndexDocument, build_index, run_calibration
from domain.siiq.records import CalibrationSummary
from scripts.siiq_convert import SNAPSHOT, convert

ROOT = Path(__file__).resolve().parents[1]


def benchmark_table(summary: CalibrationSummary) -> list[str]:
    lines = [
        "| benchmark | family | area | evaluator | n | alpha | beta | sigma2 | kept, or why not |",
        "|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for b in summary.benchmarks:
        numbers = (
            f"{b.alpha:.3f} | {b.beta:.3f} | {b.sigma2:.3f}"
            if b.kept and b.alpha is not None
            else " | | "
        )
        n = f"{b.n:g} ({b.n_kind})" if b.n is not None else "-"
        lines.append(
            f"| {b.benchmark} | {b.family} | {b.area} | {b.evaluator} | {n} | {numbers} | "
            f"{'kept' if b.kept else b.reason} |"
        )
    return lines


def top(document: IndexDocument, count: int) -> list[str]:
    lines = ["| rank | model | SI-IQ | 90% interval | position range |", "|---:|---|---:|---|---|"]
    for m in [m for m in document.models if m.ranked][:count]:
        best, worst = m.position_range or (0, 0)
        lines.append(
            f"| {m.rank} | {m.slug} | {m.si_iq} | {m.si_iq_low} to {m.si_iq_high} | "
            f"{best} to {worst} |"
        )
    return lines


def report(data: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tally = convert(data, folder)
        all_benchmarks = read_benchmarks((folder / "benchmarks.csv").read_text())
        selection = select(read_results((folder / "results.csv").read_text()), all_benchmarks)
        reference = read_reference((folder / "reference.txt").read_text())
    obs = Observations.build(selection.results, selection.benchmarks)
    invalid = set(selection.invalid_benchmarks)
    official = run_calibration(obs, all_benchmarks, invalid, reference)
    fitted, _ = eligible(obs, set(reference), set())
    no_result = [r for r in reference if r not in obs.models]
    too_few = [r for r in reference if r in obs.models and r not in fitted.models]
    present = [r for r in reference if r in fitted.models]
    diagnostic = run_calibration(obs, all_benchmarks, invalid, present)
    document = build_index(selection.results, diagnostic)
    out = [
        "# SI-IQ on the real data",
        "",
        "Written by `python scripts/siiq_real_data.py` from",
        f"`../shared/data/{SNAPSHOT}` (Epoch AI,",
        "'Data on AI Benchmarking', CC BY 4.0, retrieved via the mirrors named in",
        "`../shared/data/epoch/README.md`; each external leaderboard is credited in the evaluator",
        "column below). The conversion is `scripts/siiq_convert.py`; the input format is",
        "[siiq-input.md](siiq-input.md).",
        "",
        "## Conversion",
        "",
        *[f"- {reason}: {count} rows" for reason, count in sorted(tally.items())],
        f"- {len(selection.results)} results after choosing the best configuration per model and",
        f"  benchmark (decision A1), {len(obs.models)} models, "
        f"{len(selection.benchmarks)} benchmarks.",
        "",
        "## The method's outcome: rejected",
        "",
        "`argusic siiq calibrate` on these inputs records `CalibrationRejected`:",
        f"{official.reason}.",
        f"Of the {len(reference)} models of the frozen reference group (section 4), "
        f"{len(no_result)} have no result in the data under that exact name "
        f"({', '.join(no_result)}), and {len(too_few)} have results but fewer than the 4 a",
        f"calibration model needs ({', '.join(too_few)}). Section 3 rejects a calibration",
        "whose fitted set lacks any member of the frozen group, rather than replacing the group",
        "with the members at hand (decision A7), so no index is published from this data.",
        "",
        "## A diagnostic run, not an index",
        "",
        "To show what the data gives, the same calibration with the reference group reduced to",
        f"its {len(present)} members in the fitted set: "
        + (
            f"accepted, kappa = {diagnostic.kappa:.4f} ({diagnostic.folds} folds, "
            f"{diagnostic.pairs} pairs), shift = {diagnostic.shift:.6f}, "
            f"scale = {diagnostic.scale:.6f}, "
            f"{len(diagnostic.fitted_models)} models fitted."
            if diagnostic.accepted
            else f"rejected: {diagnostic.reason}."
        ),
        "",
        *benchmark_table(diagnostic),
        "",
        f"{len(document.models)} models scored, {sum(m.ranked for m in document.models)} ranked "
        "(section 7: 5 families, 3 areas, 2 evaluators, versions within 60 days). The first 20:",
        "",
        *top(document, 20),
        "",
    ]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    (ROOT / "docs" / "siiq-real-data.md").write_text(report(args.data))
    print("wrote docs/siiq-real-data.md")


if __name__ == "__main__":
    main()
