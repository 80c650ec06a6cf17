"""SI-IQ section 8, "cada número nuevo o modificado lo vuelve a leer en su fila de origen": a held
value is published only at a number the cross-check re-read, immediately before publishing;
a disagreement keeps the hold. Snapshots served over real HTTP, the checker's stand-in too."""

from __future__ import annotations

from domain.events import HoldConfirmed, SiiqUpdateRan, ValueHeld
from tests.api.siiq.conftest import World

MODEL, BENCH = "GPT-5", "hle"


def change(world: World, score: float) -> None:
    world.export.scores[MODEL, BENCH] = score
    world.serve_export()


def checks_of(world: World, value: float) -> list[bool]:
    """What the checker answered, in every update so far, about this model's number."""
    return [
        c.confirmed
        for ran in world.events(SiiqUpdateRan)
        for c in ran.checks
        if (c.model, c.benchmark, c.value) == (MODEL, BENCH, value)
    ]


def held_then_moved(world: World) -> ValueHeld:
    """Published at 0.1418, held at 0.3418 (20 points), then the source shows 0.3518."""
    world.hour()
    assert world.scores()[MODEL, BENCH] == 0.1418
    change(world, 0.3418)
    world.hour()
    [held] = world.events(ValueHeld)
    assert held.value == 0.3418
    change(world, 0.3518)
    world.hour()
    assert checks_of(world, 0.3518) == []  # observed, not yet about to be published
    world.hour(4)
    assert world.events(HoldConfirmed) == []
    return held


def test_a_confirmed_hold_is_published_at_the_number_the_checker_reread(world: World) -> None:
    held = held_then_moved(world)
    world.hour(1)  # six hours after it was held: the snapshot confirms, the checker re-reads 0.3518
    [confirmed] = world.events(HoldConfirmed)
    assert confirmed.hold == held.hold
    assert world.scores()[MODEL, BENCH] == 0.3518
    assert checks_of(world, 0.3518) == [True]
    assert world.events(SiiqUpdateRan)[-1].checks[-1].value == 0.3518


def test_a_checker_that_disagrees_at_confirmation_keeps_the_hold(world: World) -> None:
    held = held_then_moved(world)
    world.stand_in.refuse = {MODEL}
    world.hour(1)
    assert world.events(HoldConfirmed) == []
    assert checks_of(world, 0.3518) == [False]
    assert world.scores()[MODEL, BENCH] == 0.1418
    assert [h["hold"] for h in world.status()["holds"]] == [held.hold]
    world.stand_in.refuse = set()
    world.hour(1)  # asked again at the next update, it agrees
    assert [c.hold for c in world.events(HoldConfirmed)] == [held.hold]
    assert checks_of(world, 0.3518) == [False, True]
    assert world.scores()[MODEL, BENCH] == 0.3518
