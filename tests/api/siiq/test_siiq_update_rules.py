"""SI-IQ section 8's remaining guards through `siiq update`, over real HTTP: a ranked model
losing its rank halts publication; a new leader's hold is told to the operator after 7 days;
each check names the checker's model and family, which is never the family of the model whose
number it reads."""

from __future__ import annotations

from datetime import timedelta

from adapters.crosscheck import ChatCrossChecker
from api.services.siiq_update import NO_FAMILY, update_siiq
from domain.events import (
    OperatorNotified,
    PublicationHalted,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    ValueHeld,
)
from tests.api.siiq.conftest import World
from tests.siiq_epoch_synthetic import USED


def ranked(world: World) -> set[str]:
    return {m["slug"] for m in world.index()["models"] if m["ranked"]}


def test_a_ranked_model_that_becomes_unranked_but_stays_scored_halts_publication(
    world: World,
) -> None:
    world.hour()
    model = "Model F"
    assert model in ranked(world)
    for bench in USED[:4]:  # four results left: fewer than five families, still scored
        del world.export.scores[model, bench]
    world.serve_export()
    world.hour()
    world.hour(6)  # the deletions are removed: the model would stay scored, unranked
    [halt] = world.events(PublicationHalted)
    assert halt.reason == f"ranked models would lose their rank: {model}"
    assert halt.models == [model]
    assert model in ranked(world)  # the previous index stays online
    assert world.status()["publication"]["halted"] is True


def test_a_new_leader_held_for_seven_days_is_told_to_the_operator(world: World) -> None:
    world.hour()
    for bench in USED:
        world.export.scores["Model Z", bench] = 0.995
    world.serve_export()
    world.hour()
    held = world.events(ValueHeld)
    assert {h.reason for h in held} == {"new leader"}
    world.hour(24 * 7 - 2)
    assert world.events(OperatorNotified) == []
    world.hour(2)
    notices = world.events(OperatorNotified)
    assert sorted(n.subject for n in notices) == sorted(h.hold for h in held)
    assert all("unconfirmed after 7 days" in n.message for n in notices)
    assert all(h["notified"] for h in world.status()["holds"])
    world.hour(24)
    assert len(world.events(OperatorNotified)) == len(held)  # told once


def test_each_check_records_the_checker_which_never_reads_its_own_familys_numbers(
    world: World,
) -> None:
    world.hour()
    [first] = world.events(SiiqUpdateRan)
    assert {(c.checker, c.family) for c in first.checks} == {("other-model", "Checker Lab")}
    before = world.scores()
    world.export.organizations["GPT-5"] = "Other Lab, Checker Lab"
    for model in ("GPT-5", "Model F"):
        world.export.scores[model, "hle"] = round(before[model, "hle"] + 0.03, 4)
    world.serve_export()
    world.hour()
    checks = {c.model: c for c in world.events(SiiqUpdateRan)[-1].checks}
    assert checks["GPT-5"].confirmed is False
    assert checks["GPT-5"].answer == (
        "not asked: the checker's family Checker Lab is that of the model's developer Checker Lab"
    )
    assert (checks["Model F"].confirmed, checks["Model F"].family) == (True, "Checker Lab")
    after = world.scores()
    assert after["GPT-5", "hle"] == before["GPT-5", "hle"]
    assert after["Model F", "hle"] == round(before["Model F", "hle"] + 0.03, 4)


def test_a_checker_whose_family_is_not_configured_halts_the_update(world: World) -> None:
    world.hour()
    world.now += timedelta(hours=1)
    with ChatCrossChecker(world.stand_in.url, "other-model", "token") as unnamed:
        report = update_siiq(world.ledger, unnamed, world.now)
    assert (report.halted, report.reason) == (True, NO_FAMILY)
    assert world.events(SiiqUpdateHalted)[-1].reason == NO_FAMILY
