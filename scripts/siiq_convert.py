"""Convert the real data of reference/data (Epoch AI's benchmark exports, the newest 2026-04) into
SI-IQ's normalised input (docs/siiq-input.md): results.csv, benchmarks.csv, reference.txt.

    python scripts/siiq_convert.py [--data reference/data] [--out var/siiq]

The rules are the ones `argusic siiq update` applies to fetched snapshots, read from the copies
on disk: the Epoch adapter (`adapters.sources.epoch`) reads the tables, `domain.siiq.intake`
matches each row's version to its model group (`domain.siiq.matching`: product words, the
frozen reference names pinned to the export that last listed them), leaves out developers' own
numbers (`domain.siiq.independence`) and derives each benchmark's n
(`domain.siiq.benchmark_sources`). Configurations (the "_high" of a version) are kept as the
`config` column; choosing the best one is the index's own rule (decision A1).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.sources.tables import csv_table, sha256
from domain.siiq.benchmark_sources import GROUP_COLUMNS, GROUPS_TABLE
from domain.siiq.intake import SnapshotFile, index_intake
from domain.siiq.matching import EPOCH, Version, epoch_versions
from domain.siiq.reference_group import REFERENCE_GROUP

EXPORTS = (
    Path("epoch") / "benchmark_data_zip_2026-01",
    Path("epoch") / "benchmark_data_zip_2026-04",
)
SNAPSHOT = EXPORTS[-1]


def groups_of(folder: Path) -> list[Version]:
    table = csv_table(GROUPS_TABLE, (folder / GROUPS_TABLE).read_bytes())
    return epoch_versions(table.rows, GROUP_COLUMNS)


def convert(data: Path, out: Path) -> Counter[str]:
    exports = [groups_of(data / e) for e in EXPORTS if (data / e / GROUPS_TABLE).exists()]
    snapshot = data / SNAPSHOT
    tables = {
        (EPOCH, p.name): csv_table(p.name, p.read_bytes()).rows
        for p in sorted(snapshot.glob("*.csv"))
    }
    where = {
        (source, name): SnapshotFile(
            url=f"{SNAPSHOT}/{name}", sha256=sha256((snapshot / name).read_bytes())
        )
        for source, name in tables
    }
    intake = index_intake(exports, tables, where, (), REFERENCE_GROUP)
    out.mkdir(parents=True, exist_ok=True)
    write(
        out / "results.csv",
        ["model", "benchmark", "score", "evaluator", "released", "config", "source"],
        [
            [r.model, r.benchmark, repr(r.score), r.evaluator, r.released or "", r.config, r.source]
            for r in intake.results
        ],
    )
    write(
        out / "benchmarks.csv",
        ["benchmark", "family", "area", "evaluator", "chance", "ceiling", "n", "n_kind"],
        [
            [b.benchmark, b.family, b.area, b.evaluator, b.chance, b.ceiling, b.n, b.n_kind]
            for b in intake.benchmarks
        ],
    )
    (out / "reference.txt").write_text(
        "# SI-IQ section 4, the frozen reference group\n" + "\n".join(REFERENCE_GROUP) + "\n"
    )
    return Counter(intake.left_out)


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
    parser.add_argument("--data", type=Path, default=root / "reference" / "data")
    parser.add_argument("--out", type=Path, default=root / "var" / "siiq")
    args = parser.parse_args()
    tally = convert(args.data, args.out)
    print(f"wrote {args.out}/results.csv, benchmarks.csv, reference.txt")
    for reason, count in sorted(tally.items()):
        print(f"  {reason}: {count} rows")


if __name__ == "__main__":
    main()
