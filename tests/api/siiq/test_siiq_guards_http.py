"""SI-IQ section 8's guards, each driven by snapshots served over real HTTP on 127.0.0.1 with time
injected: the events they record and what /status.json and /data/index.json show."""

from __future__ import annotations

import pytest

from api.services.queries import SiiqQueries
from domain.errors import Rejected
from domain.events import (
    AliasApproved,
    BenchmarkFrozen,
    BenchmarkUnfrozen,
    DomainEvent,
    HoldConfirmed,
    HoldObserved,
    HoldReleased,
    OperatorNotified,
    PublicationHalted,
    RevisionApproved,
    SourceDataAccepted,
    SourceDataKept,
    ValueHeld,
    ValuesPublished,
    value_key,
)
from domain.events.operators import ApproveAlias, ApproveRevision, ReleaseHold
from ledger.verify import verify
from projections.siiq import PUBLICATION_HOLD
from tests.api.siiq.conftest import World

MODEL, BENCH = "GPT-5", "hle"


def change(world: World, model: str, bench: str, score: float) -> None:
    world.export.scores[model, bench] = score
    world.serve_export()


def nudge(world: World) -> None:
    """A new distinct snapshot of the export: one unrelated score moves a little."""
    key = ("Model F", "math_level_5")
    world.export.scores[key] = round(world.export.scores[key] + 0.001, 4)
    world.serve_export()


def test_a_big_change_is_held_until_a_later_snapshot_confirms_it(world: World) -> None:
    world.hour()
    before = world.scores()[MODEL, BENCH]
    change(world, MODEL, BENCH, round(before + 0.2, 4))
    report = world.hour()
    [held] = world.events(ValueHeld)
    assert held.reason == "changed by 20.0 points (more than 10)"
    assert (held.published, held.value) == (before, round(before + 0.2, 4))
    assert report.held == [held.hold]
    status = world.status()
    assert [(h["hold"], h["model"], h["benchmark"]) for h in status["holds"]] == [
        (held.hold, MODEL, BENCH)
    ]
    assert world.scores()[MODEL, BENCH] == before
    # Time alone never releases it: the same file for days.
    world.hour(50)
    assert world.events(HoldConfirmed) == []
    assert world.scores()[MODEL, BENCH] == before
    # A later, distinct snapshot whose most recent snapshot six hours back showed it.
    nudge(world)
    report = world.hour()
    [confirmed] = world.events(HoldConfirmed)
    assert confirmed.hold == held.hold
    assert report.confirmed == [held.hold]
    assert world.scores()[MODEL, BENCH] == round(before + 0.2, 4)
    assert world.status()["holds"] == []
    assert world.index()["version"] == "1.0.1"  # a changed published value: a patch


def test_a_value_seen_in_a_later_snapshot_is_confirmed_six_hours_after_it_was_held(
    world: World,
) -> None:
    world.hour()
    before = world.scores()[MODEL, BENCH]
    change(world, MODEL, BENCH, round(before + 0.2, 4))
    world.hour()
    change(world, MODEL, BENCH, round(before + 0.21, 4))  # a later snapshot, within 0.02
    world.hour()
    assert world.events(HoldConfirmed) == []
    world.hour(4)
    assert world.events(HoldConfirmed) == []
    world.hour(1)  # six hours after the snapshot it was held in: the latest value is published
    assert len(world.events(HoldConfirmed)) == 1
    assert world.scores()[MODEL, BENCH] == round(before + 0.21, 4)


def test_a_later_snapshot_that_moved_again_does_not_confirm(world: World) -> None:
    world.hour()
    before = world.scores()[MODEL, BENCH]
    change(world, MODEL, BENCH, round(before + 0.2, 4))
    world.hour()
    change(world, MODEL, BENCH, round(before + 0.23, 4))
    world.hour(7)
    assert world.events(HoldConfirmed) == []
    assert [o.value for o in world.events(HoldObserved)] == [round(before + 0.23, 4)]
    nudge(world)
    world.hour(7)  # now the snapshot six hours back shows the latest value
    assert len(world.events(HoldConfirmed)) == 1
    assert world.scores()[MODEL, BENCH] == round(before + 0.23, 4)


def test_a_new_result_far_from_the_models_other_results_is_held(world: World) -> None:
    weakest = min(world.export.models(), key=lambda m: world.export.scores[m, "gpqa_diamond"])
    del world.export.scores[weakest, "math_level_5"]
    world.serve_export()
    world.hour()
    change(world, weakest, "math_level_5", 0.999)
    world.hour()
    [held] = world.events(ValueHeld)
    assert held.model == weakest
    assert "SD from the model's other results" in held.reason
    assert (weakest, "math_level_5") not in world.scores()


def test_a_model_that_would_lead_by_more_than_five_points_waits(world: World) -> None:
    world.hour()
    leader = max(m["si_iq_full"] for m in world.index()["models"] if m["ranked"])
    for bench in {b for _, b in world.export.scores}:
        world.export.scores["Model Z", bench] = 0.995
    world.serve_export()
    world.hour()
    held = world.events(ValueHeld)
    assert {h.model for h in held} == {"Model Z"}
    assert {h.reason for h in held} == {"new leader"}
    assert all(h.si_iq is not None and h.si_iq > leader + 5 for h in held)
    assert "Model Z" not in {m["slug"] for m in world.index()["models"]}
    world.hour(3)
    nudge(world)
    world.hour(1)  # a later snapshot, but under six hours since it first appeared
    assert world.events(HoldConfirmed) == []
    nudge(world)
    world.hour(3)
    assert len(world.events(HoldConfirmed)) == len(held)
    top = world.index()["models"][0]
    assert (top["slug"], top["rank"]) == ("Model Z", 1)


def test_a_format_change_keeps_the_last_data(world: World) -> None:
    world.hour()
    before = world.scores()
    world.export.drop_columns["gpqa_diamond"] = "Organization"
    new = round(before[MODEL, BENCH] + 0.05, 4)
    change(world, MODEL, BENCH, new)
    report = world.hour()
    assert report.kept == ["epoch"]
    [kept] = world.events(SourceDataKept)
    assert kept.kind == "format"
    assert "lost column(s) Organization" in kept.reason
    status = world.status()
    assert [(f["source"], f["kind"]) for f in status["failures"]] == [("epoch", "format")]
    assert world.scores() == before
    world.hour(2)
    assert len(world.events(SourceDataKept)) == 1  # shown once while the same file stays
    del world.export.drop_columns["gpqa_diamond"]
    world.serve_export()
    world.hour()
    assert [a.reason for a in world.events(SourceDataAccepted)] == ["good data again"]
    assert world.status()["failures"] == []
    assert world.scores()[MODEL, BENCH] == new


def test_a_sudden_loss_of_rows_keeps_the_last_data_until_24_hours_of_smaller_files(
    world: World,
) -> None:
    world.hour()
    gone = sorted(m for m, b in world.export.scores if b == "gpqa_diamond")[:20]
    for model in gone:
        del world.export.scores[model, "gpqa_diamond"]
    world.serve_export()
    world.hour()
    [kept] = world.events(SourceDataKept)
    assert kept.kind == "rows"
    assert "rows fell from 50 to 30" in kept.reason
    assert world.status()["failures"][0]["kind"] == "rows"
    assert (gone[0], "gpqa_diamond") in world.scores()
    world.hour(23)
    assert world.events(SourceDataAccepted) == []
    world.hour(1)
    [accepted] = world.events(SourceDataAccepted)
    assert "24 hours" in accepted.reason
    # The rows the source removed are Epoch AI deletions: gone six hours later.
    world.hour(5)
    assert (gone[0], "gpqa_diamond") in world.scores()
    world.hour(1)
    published = world.events(ValuesPublished)[-1]
    assert value_key(gone[0], "gpqa_diamond") in published.removed
    assert (gone[0], "gpqa_diamond") not in world.scores()


def test_an_epoch_deletion_is_removed_after_six_hours(world: World) -> None:
    world.hour()
    del world.export.scores[MODEL, BENCH]
    world.serve_export()
    world.hour()
    world.hour(5)
    assert (MODEL, BENCH) in world.scores()
    world.hour(1)
    assert (MODEL, BENCH) not in world.scores()
    assert world.index()["version"] == "1.0.1"


def test_a_changed_definition_freezes_that_benchmark_until_a_person_reviews_it(
    world: World,
) -> None:
    world.hour()  # HLE's n is effective, from its standard errors: gone, it is assumed
    before = world.scores()
    world.export.blank_columns["hle"] = "Accuracy Standard Error"
    world.export.scores[MODEL, "hle"] = 0.11
    world.export.scores[MODEL, "math_level_5"] = round(before[MODEL, "math_level_5"] + 0.01, 4)
    world.serve_export()
    report = world.hour()
    assert report.frozen == ["hle"]
    [frozen] = world.events(BenchmarkFrozen)
    assert frozen.kind == "definition"
    assert "n_kind changed from effective to assumed" in frozen.reason
    assert world.status()["frozen"] == ["hle"]
    after = world.scores()
    assert after[MODEL, "hle"] == before[MODEL, "hle"]
    assert after[MODEL, "math_level_5"] != before[MODEL, "math_level_5"]  # the others update
    world.hour(80)
    assert world.status()["frozen"] == ["hle"]
    world.sign(ApproveRevision(benchmark="hle", snapshot=frozen.snapshot))
    world.hour()
    assert [u.benchmark for u in world.events(BenchmarkUnfrozen)] == ["hle"]
    world.hour()
    assert world.status()["frozen"] == []


def held_drop(world: World) -> tuple[float, ValueHeld]:
    """A published score, and the hold of a drop of 15 points in it (over 10: held)."""
    world.hour()
    before = world.scores()[MODEL, BENCH]
    change(world, MODEL, BENCH, round(before - 0.15, 4))
    world.hour()
    [held] = world.events(ValueHeld)
    return before, held


def test_a_held_value_unconfirmed_for_seven_days_is_told_and_released_by_a_person(
    world: World,
) -> None:
    before, held = held_drop(world)
    world.hour(24 * 7 - 2)
    assert world.events(OperatorNotified) == []
    world.hour(2)
    [notice] = world.events(OperatorNotified)
    assert notice.subject == held.hold
    status = world.status()
    assert [n["subject"] for n in status["notifications"]] == [held.hold]
    assert status["holds"][0]["notified"] is True
    world.hour(24)
    assert len(world.events(OperatorNotified)) == 1
    assert world.scores()[MODEL, BENCH] == before
    events = world.sign(ReleaseHold(hold=held.hold, note="checked in Epoch AI's table"))
    assert [type(e) for e in events][-1] is HoldReleased
    world.hour()
    assert world.scores()[MODEL, BENCH] == round(before - 0.15, 4)
    assert world.status()["holds"] == []


def test_a_name_matched_to_another_model_leaves_at_once_history_included(world: World) -> None:
    world.hour()
    world.sign(
        ApproveAlias(
            source="epoch", name="Model F", group="Model Y", justification="renamed upstream"
        )
    )
    world.hour()
    published = world.events(ValuesPublished)[-1]
    assert sorted(published.purged) == sorted(
        value_key("Model F", b) for m, b in world.export.scores if m == "Model F"
    )
    assert {v.result.model for v in published.values} == {"Model Y"}
    history = SiiqQueries(world.ledger).history_at(world.ledger.size())
    assert all(r.model != "Model F" for day in history.days for r in day.inputs)
    # A ranked model vanishing halts publication until six runs show it is what the source says.
    assert world.events(PublicationHalted)[0].models == ["Model F"]
    for _ in range(5):
        world.hour()
    slugs = {m["slug"] for m in world.index()["models"]}
    assert "Model Y" in slugs
    assert "Model F" not in slugs


def test_releasing_a_hold_that_is_not_open_is_refused_and_nothing_appended(
    world: World,
) -> None:
    _, held = held_drop(world)
    world.sign(ReleaseHold(hold=held.hold, note="checked"))
    size = world.ledger.size()
    for hold in (held.hold, "no-such-hold", PUBLICATION_HOLD):  # released; never held; no halt
        refused = rf"hold {hold} is not open: nothing to release \(SI-IQ section 8\)"
        with pytest.raises(Rejected, match=refused):
            world.sign(ReleaseHold(hold=hold, note="again"))
    with pytest.raises(Rejected, match=f"benchmark {BENCH} is not frozen"):
        world.sign(ApproveRevision(benchmark=BENCH, snapshot="any"))
    assert world.ledger.size() == size


def forged(world: World, *events: DomainEvent) -> int:
    """Decisions appended as any writer of the database can, with nobody's signed action; the
    first one's position."""
    first = world.ledger.size() + 1
    world.ledger.append(world.ledger.next_versions(list(events)))
    return first


def test_a_release_or_an_alias_appended_without_authority_changes_nothing(world: World) -> None:
    """ARCHITECTURE.md, "Authority": only a signed action releases a hold or matches a name."""
    before, held = held_drop(world)
    first = forged(
        world,
        HoldReleased(hold=held.hold, note="forged", operator="tester"),
        AliasApproved(
            source="epoch", name="Model F", group="Model Y", justification="x", operator="tester"
        ),
    )
    world.hour()
    assert world.scores()[MODEL, BENCH] == before  # still held, at the value published
    assert [h["hold"] for h in world.status()["holds"]] == [held.hold]
    assert "Model F" in {m["slug"] for m in world.index()["models"]}
    assert world.events(PublicationHalted) == []
    assert verify(world.ledger).first_bad_position == first


def test_a_revision_approved_without_authority_unfreezes_nothing(world: World) -> None:
    world.hour()
    world.export.blank_columns["hle"] = "Accuracy Standard Error"
    world.serve_export()
    world.hour()
    [frozen] = world.events(BenchmarkFrozen)
    first = forged(
        world,
        RevisionApproved(benchmark="hle", snapshot=frozen.snapshot, operator="tester"),
    )
    world.hour()
    world.hour()
    assert world.events(BenchmarkUnfrozen) == []
    assert world.status()["frozen"] == ["hle"]
    assert verify(world.ledger).first_bad_position == first
