"""An Epoch AI export (benchmark_data.zip, CSVs at its root, in Epoch's columns) whose numbers
come from the section 3 model itself, so that it calibrates: the 44 reference-group members and
a few other models, each with a result on eight of the index's benchmarks. Tests change its
scores between snapshots and serve it over HTTP (tests/sources_server.py) to drive the
guards of SI-IQ section 8; the real exports do not calibrate (docs/siiq-real-data.md).
"""

from __future__ import annotations

import csv
import io
import math
import zipfile
from dataclasses import dataclass, field

from domain.siiq.benchmark_sources import BENCHMARKS, GROUP, GROUPS_TABLE, RELEASED, VERSION
from domain.siiq.reference_group import REFERENCE_GROUP

USED = (
    "gpqa_diamond",
    "math_level_5",
    "otis_mock_aime_2024_2025",
    "swe_bench_verified",
    "chess_puzzles",
    "aider_polyglot",
    "terminal_bench",
    "hle",
)
"""Eight benchmarks, eight families, five areas, four evaluators; two with an effective n."""
OTHERS = tuple(f"Model {c}" for c in "ABCDEF")


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _default_scores() -> dict[tuple[str, str], float]:
    models = (*REFERENCE_GROUP, *OTHERS)
    scores = {}
    for i, model in enumerate(models):
        theta = -2 + 4 * ((i * 17) % len(models)) / (len(models) - 1)
        for j, bench in enumerate(USED):
            alpha, beta = 0.8 + 0.1 * (j % 4), -0.5 + 0.25 * (j % 5)
            wobble = 0.25 * math.sin(1.3 * i + 2.1 * j)
            chance = BENCHMARKS[bench].chance
            p = _sigmoid(alpha * theta + beta + wobble)
            scores[model, bench] = round(chance + (1 - chance) * p, 4)
    return scores


@dataclass
class SyntheticExport:
    """The export's rows: `scores[(model, benchmark)]` as a proportion; a deleted pair has no
    row; `drop_columns` removes a column from a benchmark's table (a format change)."""

    scores: dict[tuple[str, str], float] = field(default_factory=_default_scores)
    drop_columns: dict[str, str] = field(default_factory=dict)
    blank_columns: dict[str, str] = field(default_factory=dict)
    """A column left empty in a benchmark's table (its standard errors: n is then assumed)."""
    organizations: dict[str, str] = field(default_factory=dict)
    """A model's developers in its benchmark rows' Organization cell (none by default)."""
    renamed_columns: dict[str, tuple[str, str]] = field(default_factory=dict)
    """A column renamed in a benchmark's table (old name, new name)."""
    released: str = "2025-06-01"

    def models(self) -> list[str]:
        return sorted({m for m, _ in self.scores})

    def zip(self) -> bytes:
        """benchmark_data.zip, byte for byte the same for the same rows."""
        members = {GROUPS_TABLE: self._groups()}
        for bench in USED:
            members[BENCHMARKS[bench].table] = self._table(bench)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in sorted(members):
                info = zipfile.ZipInfo(name, date_time=(2026, 11, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, members[name])
        return buffer.getvalue()

    def _groups(self) -> bytes:
        rows = [[m, m, self.released, "Synthetic Lab"] for m in self.models()]
        return _csv([VERSION, GROUP, RELEASED, "Organization"], rows)

    def _table(self, bench: str) -> bytes:
        source = BENCHMARKS[bench]
        se = source.se_column or "stderr"
        columns = [VERSION, source.column, se, RELEASED, "Organization"]
        rows = []
        for (model, name), score in sorted(self.scores.items()):
            if name == bench:
                shown = score * source.scale
                error = math.sqrt(max(score * (1 - score), 0.01) / 150) * source.se_scale
                organization = self.organizations.get(model, "")
                rows.append([model, f"{shown:.4f}", f"{error:.4f}", self.released, organization])
        blank = self.blank_columns.get(bench)
        if blank is not None:
            for row in rows:
                row[columns.index(blank)] = ""
        renamed = self.renamed_columns.get(bench)
        if renamed is not None:
            columns[columns.index(renamed[0])] = renamed[1]
        drop = self.drop_columns.get(bench)
        if drop is not None:
            at = columns.index(drop)
            columns.pop(at)
            for row in rows:
                row.pop(at)
        return _csv(columns, rows)


def _csv(columns: list[str], rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode()
