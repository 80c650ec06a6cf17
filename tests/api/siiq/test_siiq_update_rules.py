"""SI-IQ section 8's remaining guards through `siiq update`, over real HTTP: a ranked model
losing its rank halts publication; a new leader's hold is told to the operator after 7 days."""

from __future__ import annotations

from domain.events import OperatorNotified, PublicationHalted, ValueHeld
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
