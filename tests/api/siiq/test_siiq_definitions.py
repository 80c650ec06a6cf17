"""SI-IQ section 8, "si cambia la definición de un benchmark (columna de puntuación, escala, …),
solo ese benchmark queda congelado …; los demás benchmarks de la fuente se siguen actualizando":
a renamed or vanished score column and a changed scale freeze their benchmark alone."""

from __future__ import annotations

import hashlib
from typing import Any

from domain.events import BenchmarkFrozen, SourceDataKept
from domain.siiq.benchmark_sources import BENCHMARKS
from tests.api.siiq.conftest import World

MODEL = "GPT-5"
SCORE = "Best score (across scorers)"


def test_a_renamed_score_column_freezes_that_benchmark_and_the_others_update(
    world: World,
) -> None:
    world.hour()
    before = world.scores()
    world.export.renamed_columns["gpqa_diamond"] = (SCORE, "Score")
    moved = round(before[MODEL, "math_level_5"] + 0.01, 4)
    world.export.scores[MODEL, "math_level_5"] = moved
    world.serve_export()
    report = world.hour()
    assert report.kept == []
    assert world.events(SourceDataKept) == []
    assert report.frozen == ["gpqa_diamond"]
    [frozen] = world.events(BenchmarkFrozen)
    assert (frozen.benchmark, frozen.kind) == ("gpqa_diamond", "definition")
    assert frozen.reason == (
        "definition changed: score column Best score (across scorers) of gpqa_diamond.csv is gone"
    )
    after = world.scores()
    assert after[MODEL, "math_level_5"] == moved  # the source's other benchmark updated
    gpqa = {k: v for k, v in before.items() if k[1] == "gpqa_diamond"}
    assert {k: after[k] for k in gpqa} == gpqa  # the frozen one kept every published value
    status = world.status()
    assert status["frozen"] == ["gpqa_diamond"]
    assert status["failures"] == []
    world.hour(7)  # its values, unlisted now, are not removed while it is frozen
    assert {k: world.scores()[k] for k in gpqa} == gpqa


def test_a_score_column_gone_freezes_only_its_benchmark(world: World) -> None:
    world.hour()
    world.export.drop_columns["hle"] = BENCHMARKS["hle"].column
    world.serve_export()
    report = world.hour()
    assert (report.kept, report.frozen) == ([], ["hle"])


def test_a_changed_scale_freezes_that_benchmark(world: World) -> None:
    world.hour()
    before = world.scores()
    for key in [k for k in world.export.scores if k[1] == "chess_puzzles"]:
        world.export.scores[key] = round(world.export.scores[key] * 100, 2)  # now in percent
    world.serve_export()
    report = world.hour()
    assert report.frozen == ["chess_puzzles"]
    [frozen] = world.events(BenchmarkFrozen)
    assert frozen.reason.startswith("definition changed: scale changed: a score of ")
    assert world.scores() == before


def epoch_status(world: World) -> dict[str, Any]:
    [entry] = [s for s in world.status()["sources"] if s["source"] == "epoch"]
    return entry


def test_a_refused_file_shows_in_its_sources_entry_which_names_the_file_kept(
    world: World,
) -> None:
    world.hour()
    kept = hashlib.sha256(world.export.zip()).hexdigest()
    world.export.drop_columns["gpqa_diamond"] = "Organization"
    world.serve_export()
    refused = hashlib.sha256(world.export.zip()).hexdigest()
    world.hour()
    entry = epoch_status(world)
    assert entry["ok"] is False
    assert entry["failure"].startswith("format changed: ")
    assert "lost column(s) Organization" in entry["failure"]
    assert entry["last_snapshot"]["sha256"] == kept != refused
    assert [(f["ok"], f["last_snapshot"]["sha256"]) for f in entry["files"]] == [(False, kept)]
    del world.export.drop_columns["gpqa_diamond"]
    world.export.scores[MODEL, "hle"] += 0.001
    world.serve_export()
    world.hour()
    entry = epoch_status(world)
    assert (entry["ok"], entry["failure"]) == (True, None)
    assert entry["last_snapshot"]["sha256"] == hashlib.sha256(world.export.zip()).hexdigest()
