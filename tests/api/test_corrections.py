"""The methodology corrections (issue 10) through the ledger, on SQLite and PostgreSQL: each
rule with the exact numbers it gives."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec
import pytest

from api.services.ingest import IngestRejected
from projections.views.editions import editions_view
from projections.views.run import run_view
from projections.views.sources import sources_view
from tests.api.world import World
from tests.records import report, run


def view(world: World, run_id: str) -> Any:
    return world.reads().answer(run_id, partial(run_view, run_id=run_id))


def test_recovery_is_0_when_the_run_went_wrong_and_nothing_was_found(world: World) -> None:
    not_installed = run("r1", "p", "agent-a", "100") | {
        "report": report(False, False, 0, 0, "tier3_none")
    }
    not_started = run("r2", "p", "agent-a", "100") | {
        "report": report(True, False, 0, 0, "tier3_none")
    }
    unverified = run("r3", "p", "agent-a", "100") | {
        "report": report(True, True, 0, 0, "tier3_none")
    }
    world.ingest([not_installed, not_started, unverified])
    assert [view(world, r).score for r in ("r1", "r2", "r3")] == [0.0, 30.0, 80.0]


def test_editions_show_the_day_their_rules_were_decided(world: World) -> None:
    world.ingest(
        [
            {
                "kind": "edition",
                "version": "0.2",
                "drafted": "2026-08-31",
                "decided": "2026-08-29",
                "summary": "edition 0.2",
            }
        ]
    )
    rows = {e.version: e for e in world.reads().answer("e", editions_view).editions}
    assert (rows["0.2"].drafted.isoformat(), rows["0.2"].decided.isoformat()) == (
        "2026-08-31",
        "2026-08-29",
    )
    assert rows["1.3"].decided is None
    with pytest.raises(IngestRejected) as rejected:
        world.ingest(
            [
                {
                    "kind": "edition",
                    "version": "0.3",
                    "drafted": "2026-08-30",
                    "decided": "2026-08-31",
                    "summary": "x",
                }
            ]
        )
    assert (
        "decided 2026-08-31 after it was drafted (section 20)"
        in rejected.value.rejections[0].reason
    )


def test_a_run_over_its_budget_is_a_timeout_and_the_page_shows_the_budget(world: World) -> None:
    world.ingest(
        [
            run("r1", "p", "agent-a", "100", edition="1.2")
            | {"finished_at": "2026-09-10T10:50:00Z"},
            run("r2", "p", "agent-a", "100", edition="1.3")
            | {"finished_at": "2026-09-10T10:50:00Z"},
        ]
    )
    late, in_time = view(world, "r1"), view(world, "r2")
    assert (late.time_budget_minutes, late.outcome, late.score) == (45, "timeout", 0.0)
    assert (in_time.time_budget_minutes, in_time.outcome, in_time.score) == (90, "pass_full", 100.0)
    assert late.run.status == "finished"  # recorded as reported, scored by the rule


def test_a_run_that_differs_from_its_set_is_rejected_naming_the_field(world: World) -> None:
    first = run("r1", "p", "agent-a", "100") | {"project": PROJECT | {"commit": "c1"}}
    world.ingest([first])
    size = world.ledger.size()
    other = run("r2", "p", "agent-a", "100") | {"project": PROJECT | {"commit": "c2"}}
    with pytest.raises(IngestRejected) as rejected:
        world.ingest([other])
    (rejection,) = rejected.value.rejections
    assert (rejection.line, rejection.file.endswith(".jsonl")) == (1, True)
    assert rejection.reason == (
        "run r2: project.commit is 'c2', but its set (agent-a on p in 2026-09) ran with 'c1'"
        " (sections 4 and 14)"
    )
    assert world.ledger.size() == size


def test_the_image_digest_is_recorded_and_shown(world: World) -> None:
    digest = "sha256:" + "d" * 64
    world.ingest([run("r1", "p", "agent-a", "100") | {"image_digest": digest}])
    assert view(world, "r1").run.image_digest == digest


def test_a_cancelled_run_is_recorded_and_never_counted(world: World) -> None:
    world.ingest(
        [
            *(run(f"r{i}", "p", "agent-a", "100") for i in range(3)),
            run("c1", "p", "agent-a", "100", status="cancelled") | {"report": None},
        ]
    )
    assert (view(world, "c1").valid, view(world, "c1").invalid_reason) == (False, "cancelled")
    (row,) = world.leaderboard()
    assert (row["attempts"], row["score"]) == (3, 100.0)


def test_a_source_type_not_started_counts_nowhere(world: World) -> None:
    world.ingest(
        [
            *(run(f"r{i}", "p", "agent-a", "100") for i in range(3)),
            # a space in the secret pool: no published project of its type has run yet
            *(
                run(
                    f"s{i}",
                    "space",
                    "agent-a",
                    "100",
                    source_type="huggingface_space",
                    pool="secret",
                )
                for i in range(3)
            ),
        ]
    )
    statuses = {s.source_type: s.status for s in world.reads().answer("s", sources_view).sources}
    assert statuses["huggingface_space"] == "declared_not_started"
    assert world.project("space").verdict is None
    (row,) = world.leaderboard()
    assert (row["attempts"], row["projects_counted"], row["excluded"]) == (3, 1, [])


def test_a_hugging_face_model_run_verifies_the_documented_snippet(world: World) -> None:
    world.ingest(
        [
            run("r1", "model", "agent-a", "100", source_type="huggingface_model"),
            run("r2", "repo", "agent-a", "100"),
        ]
    )
    assert view(world, "r1").verified_claim == "the documented snippet produced output"
    assert view(world, "r2").verified_claim == "the product works"
    page = msgspec.json.encode(view(world, "r1")).decode()
    assert "the product works" not in page


def test_ingest_counts_add_up(world: World) -> None:
    records = [run("r1", "p", "agent-a", "100"), run("r2", "p", "agent-a", "92")]
    world.ingest(records)
    report = world.last_report
    assert (report.records, report.unchanged, report.appended) == (2, 0, 16)  # 8 a run
    world.ingest([*records, run("r3", "p", "agent-a", "80")])
    report = world.last_report
    assert (report.records, report.unchanged, report.appended) == (3, 2, 8)


PROJECT = {"id": "p", "source_type": "repository", "pool": "public"}
