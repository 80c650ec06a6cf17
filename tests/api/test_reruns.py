"""Runs asked for again are run (issue 27, item 1), on SQLite and PostgreSQL: each open rerun
request becomes exactly one scheduled run `<id>~r<N>` replacing it, with its pinned commit,
agent and budget tier, however many schedulers ask at once; the documents link both ways."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from api.services.runs_view import list_runs
from api.services.schedule import schedule, schedule_reruns
from api.wiring import orchestrator_config
from domain.events import RerunRequested
from domain.runner.budgets import budget_seconds
from projections.methodology import MethodologyProjection
from tests.api.test_publication import CYCLE, agent, approve, project, runs
from tests.api.world import World
from tests.at_once import at_once
from tests.records import RUNTIME, run

RUN = "o-agent-a-0"
CONFIG = orchestrator_config({})


@pytest.fixture
def disputed(world: World) -> World:
    """A run of each agent ruled `rerun` on dispute."""
    world.ingest([agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE])
    world.publish()  # the cycle's pool, before the cycle (section 6)
    world.ingest(runs("open-app", "public", "o"))
    for run_id in (RUN, "o-agent-b-0"):
        world.act({"action": "dispute_open", "run_id": run_id, "claimant": "a lab", "claim": "x"})
        world.act(
            {"action": "dispute_resolve", "dispute": f"{run_id}.1", "outcome": "rerun", "note": "n"}
        )
    return world


def reruns_of(world: World) -> Any:
    reader = ProjectionReader(world.ledger, MethodologyProjection())
    return schedule_reruns(reader, RunBoard(world.ledger), CONFIG, world.ledger.clock)


def test_a_run_asked_for_again_is_scheduled_once_as_it_ran(disputed: World) -> None:
    planned = reruns_of(disputed)
    assert [r.run_id for r in planned.scheduled] == [f"{RUN}~r2", "o-agent-b-0~r2"]
    again = planned.scheduled[0]
    original = disputed.reads().latest().runs[RUN].event
    assert (again.replaces, again.project, again.agent) == (RUN, original.project, original.agent)
    assert (again.tier, again.budget_seconds) == (
        "standard",
        budget_seconds("standard", CONFIG.budgets),
    )
    assert again.project.commit == "c0ffee"
    assert planned.waiting == {}
    [request] = [r.event for r in disputed.ledger.stream(f"rerun:{RUN}")]
    assert request.why == "dispute"  # type: ignore[attr-defined]
    assert reruns_of(disputed).scheduled == []  # once
    row = next(r for r in list_runs(disputed.ledger).runs if r.run_id == f"{RUN}~r2")
    assert (row.state, row.replaces) == ("scheduled", RUN)


def test_the_cycles_schedule_turns_the_requests_into_runs(disputed: World) -> None:
    report = schedule(disputed.ledger, "2026-09", CONFIG, disputed.ledger.clock)
    assert {f"{RUN}~r2", "o-agent-b-0~r2"} <= set(report.scheduled)
    assert report.reruns_waiting == {}


def test_schedulers_at_once_schedule_each_rerun_once(disputed: World) -> None:
    assert at_once(lambda: reruns_of(disputed)) == []
    scheduled = [r for r in RunBoard(disputed.ledger).refresh().runs if "~r" in r]
    assert sorted(scheduled) == [f"{RUN}~r2", "o-agent-b-0~r2"]


def test_a_recorded_rerun_and_its_run_name_each_other(
    disputed: World, public: TestClient[Any]
) -> None:
    disputed.ingest(
        [
            run(f"{RUN}~r2", "open-app", "agent-a", "100")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    approve(disputed)
    replaced = public.get(f"/runs/{RUN}").json()
    rerun = public.get(f"/runs/{RUN}~r2").json()
    assert (replaced["replaces"], replaced["replaced_by"]) == (None, f"{RUN}~r2")
    assert (rerun["replaces"], rerun["replaced_by"]) == (RUN, None)
    assert replaced["valid"] is False  # the replaced run stays published and does not count
    page = public.get(f"/runs/{RUN}", headers={"accept": "text/html"}).text
    assert f'href="/runs/{RUN}~r2"' in page


def test_a_run_without_its_full_evidence_is_asked_for_again_by_the_rules(world: World) -> None:
    """Section 7, point 5: no full log, no valid run; the rules ask for it again (no signed
    action needed: the request sets nothing aside) and the schedule runs it."""
    world.ingest([agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE])
    world.publish()  # the cycle's pool, before the cycle (section 6)
    records = runs("open-app", "public", "o")
    records[0] = records[0] | {"evidence": {"cast": "run.cast"}}  # its log never arrived
    world.ingest(records)
    [request] = [r.event for r in world.ledger.stream(f"rerun:{RUN}")]
    assert (request.why, request.reason) == ("missing_evidence", "no full log")  # type: ignore[attr-defined]
    state = world.reads().latest()
    assert state.judge(state.runs[RUN]).invalid_reason == "no full log"  # its own reason stays
    assert [r.run_id for r in reruns_of(world).scheduled] == [f"{RUN}~r2"]


def test_a_rule_made_request_for_a_valid_run_counts_nowhere(world: World) -> None:
    """A host that can append could ask for a valid run "again, by the rules": nothing is set
    aside and nothing is scheduled, and `ledger verify` passes (the request decides nothing)."""
    world.ingest([agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE])
    world.publish()  # the cycle's pool, before the cycle (section 6)
    world.ingest(runs("open-app", "public", "o"))
    for why in ("aborted", "missing_evidence"):
        forged = RerunRequested(run_id=RUN, reason="forged", why=why)  # type: ignore[arg-type]
        world.ledger.append(world.ledger.next_versions([forged]))
    state = world.reads().latest()
    assert state.judge(state.runs[RUN]).invalid_reason is None
    assert reruns_of(world).scheduled == []
