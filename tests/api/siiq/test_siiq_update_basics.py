"""SI-IQ section 8 end to end: the first update publishes every cross-checked value and
calibrates; an unset or down checker halts the whole update with the previous version online."""

from __future__ import annotations

from domain.events import (
    CalibrationAccepted,
    CrossCheckRejected,
    OperatorNotified,
    SiiqPublished,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    ValuesPublished,
)
from tests.api.siiq.conftest import ZIP, World

MODEL, BENCH = "GPT-5", "hle"


def test_the_first_update_cross_checks_publishes_and_calibrates(world: World) -> None:
    report = world.hour()
    assert not report.halted
    assert report.published == 400
    assert world.stand_in.calls == 400
    ran = world.events(SiiqUpdateRan)
    assert len(ran) == 1
    assert all(c.confirmed for c in ran[0].checks)
    assert sorted(ran[0].snapshots) == ["aider", "arena", "bfcl", "epoch", "litellm", "openrouter"]
    assert len(world.events(ValuesPublished)[0].values) == 400
    assert world.events(CalibrationAccepted)[0].calibration.version == "1.0.0"
    assert len(world.events(SiiqPublished)) == 1
    index = world.index()
    assert index["version"] == "1.0.0"
    assert sum(m["ranked"] for m in index["models"]) == 50
    assert [a["source"] for a in index["attributions"]] == ["epoch"]
    status = world.status()
    assert status["halted"] is False
    assert status["holds"] == []
    assert status["frozen"] == []
    assert {s["source"] for s in status["sources"]} == {
        "aider",
        "arena",
        "bfcl",
        "epoch",
        "litellm",
        "openrouter",
    }
    # Nothing new: the next hour publishes the same documents again.
    world.hour()
    assert (
        world.events(SiiqPublished)[1].index_sha256 == world.events(SiiqPublished)[0].index_sha256
    )


def test_an_unset_or_down_checker_halts_the_whole_update(world: World) -> None:
    world.hour()
    published = world.index()
    world.export.scores["GPT-5", "hle"] = 0.05
    world.serve_export()
    report = world.hour(checker=False)
    assert report.halted
    assert "ARGUSIC_CROSSCHECK_URL" in (report.reason or "")
    status = world.status()
    assert status["halted"] is True
    assert "ARGUSIC_CROSSCHECK_URL" in status["reason"]
    assert [n["subject"] for n in status["notifications"]] == ["update"]
    assert world.index() == published
    world.stand_in.down = True
    report = world.update()
    world.approve()
    assert report.halted
    assert "503" in (report.reason or "")
    assert len(world.events(SiiqUpdateHalted)) == 2
    assert len(world.events(OperatorNotified)) == 1  # told once while it stays halted
    assert world.index() == published
    world.stand_in.down = False
    world.hour()
    assert world.status()["halted"] is False


def test_a_number_the_checker_does_not_confirm_is_left_out(world: World) -> None:
    world.hour()
    before = world.scores()[MODEL, BENCH]
    world.export.scores[MODEL, BENCH] = round(before + 0.03, 4)
    world.serve_export()
    world.stand_in.refuse = {MODEL}
    world.hour()
    [rejected] = world.events(CrossCheckRejected)
    assert (rejected.model, rejected.benchmark, rejected.value) == (
        MODEL,
        BENCH,
        round(before + 0.03, 4),
    )
    assert [c.confirmed for c in world.events(SiiqUpdateRan)[-1].checks] == [False]
    assert world.scores()[MODEL, BENCH] == before


def test_a_failing_source_keeps_its_last_good_data(world: World) -> None:
    world.hour()
    before = world.scores()
    world.export.scores[MODEL, BENCH] = round(before[MODEL, BENCH] + 0.03, 4)
    world.serve_export()
    world.server.fail(ZIP)
    report = world.hour()
    assert (report.published, report.held) == (0, [])
    epoch = next(s for s in world.status()["sources"] if s["source"] == "epoch")
    assert epoch["ok"] is False
    assert "503" in epoch["failure"]
    assert world.scores() == before
    world.server.files[ZIP].status = 200
    world.hour()
    assert world.scores()[MODEL, BENCH] == round(before[MODEL, BENCH] + 0.03, 4)
