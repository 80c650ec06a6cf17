"""Reproduction on request (methodology section 18; issue 27, item 3), on SQLite and PostgreSQL:
a signed `request_reproduction` schedules N runs `<id>~p<k>` with everything the original ran
with pinned; they count in no figure; once all are recorded a report says whether the outcome
held and what differed, served at `/runs/{id}/reproductions`."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from litestar.testing import TestClient

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from api.services.schedule import report_reproductions, schedule_reproductions
from api.wiring import orchestrator_config
from domain.errors import Rejected
from domain.events import ReproductionReported, streams
from domain.events.methodology import Difference
from projections.methodology import MethodologyProjection
from tests.api.test_publication import CYCLE, agent, approve, runs
from tests.api.world import World
from tests.records import RUNTIME

RUN = "o-agent-a-0"
CONFIG = orchestrator_config({})
DIGEST = "sha256:" + "ab" * 32
OTHER_ENGINE = "27.0.1"
SHA = hashlib.sha256(b"instructions").hexdigest()
RAN_WITH = {
    "image_digest": DIGEST,
    "engine_version": "26.1.5",
    "network": "none",
    "instructions_sha256": SHA,
}


@pytest.fixture
def recorded(world: World) -> World:
    world.ingest([agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE])
    world.ingest([r | RAN_WITH for r in runs("open-app", "public", "o")])
    return world


def reader(world: World) -> ProjectionReader[Any]:
    return ProjectionReader(world.ledger, MethodologyProjection())


def reproductions_of(world: World) -> Any:
    return schedule_reproductions(reader(world), RunBoard(world.ledger), CONFIG, world.ledger.clock)


def ask(world: World, runs: int = 3) -> None:
    world.act(
        {"action": "request_reproduction", "run_id": RUN, "runs": runs, "requested_by": "a lab"}
    )


def reproduced(world: World, run_id: str, score: str, **ran_with: str) -> None:
    """A reproduction's record, as the runner records it."""
    [original] = [r for r in runs("open-app", "public", "o") if r["run_id"] == RUN]
    again = original | RAN_WITH | ran_with | {"run_id": run_id, "reproduces": RUN}
    if score != "100":
        again["report"] = again["report"] | {"installed": False, "started": False}
    world.ingest([again])


def test_a_reproduction_runs_the_original_again_as_it_ran(recorded: World) -> None:
    ask(recorded)
    planned = reproductions_of(recorded)
    assert [r.run_id for r in planned.scheduled] == [f"{RUN}~p1", f"{RUN}~p2", f"{RUN}~p3"]
    original = recorded.reads().latest().runs[RUN].event
    for again in planned.scheduled:
        assert (again.reproduces, again.replaces) == (RUN, None)
        assert (again.image_digest, again.instructions_sha256) == (DIGEST, SHA)
        assert (again.project, again.agent) == (original.project, original.agent)
        assert again.budget_seconds == original.budget_minutes * 60  # type: ignore[operator]
    assert reproductions_of(recorded).scheduled == []  # once
    ask(recorded, runs=1)  # a second request numbers on
    assert [r.run_id for r in reproductions_of(recorded).scheduled] == [f"{RUN}~p4"]


def test_the_report_says_whether_the_outcome_held_and_what_differed(
    recorded: World, public: TestClient[Any]
) -> None:
    ask(recorded)
    before = recorded.leaderboard()
    reproduced(recorded, f"{RUN}~p1", "100")
    reproduced(recorded, f"{RUN}~p2", "100", engine_version=OTHER_ENGINE)
    assert report_reproductions(reader(recorded), recorded.ledger) == []  # one still to end
    reproduced(recorded, f"{RUN}~p3", "0")
    assert report_reproductions(reader(recorded), recorded.ledger) == [f"{RUN}/reproduction/1"]
    assert report_reproductions(reader(recorded), recorded.ledger) == []  # once
    assert recorded.leaderboard() == before  # reproductions count in no figure
    approve(recorded)
    doc = public.get(f"/runs/{RUN}/reproductions").json()
    [request] = doc["reproductions"]
    assert (doc["outcome"], request["done"], request["same_outcome"]) == ("pass_full", True, False)
    assert [(r["run_id"], r["outcome"]) for r in request["runs"]] == [
        (f"{RUN}~p1", "pass_full"),
        (f"{RUN}~p2", "pass_full"),
        (f"{RUN}~p3", "fail"),
    ]
    assert request["differences"] == [
        {"field": "engine_version", "original": "26.1.5", "now": OTHER_ENGINE}
    ]
    page = public.get(f"/runs/{RUN}/reproductions", headers={"accept": "text/html"}).text
    assert f'href="/runs/{RUN}~p3"' in page
    assert "The outcome did not hold in every run." in page
    run_page = public.get(f"/runs/{RUN}", headers={"accept": "text/html"}).text
    assert f'href="/runs/{RUN}/reproductions"' in run_page
    again = public.get(f"/runs/{RUN}~p1", headers={"accept": "text/html"}).text
    assert f'This run reproduces <a href="/runs/{RUN}">' in again


def test_a_report_the_runs_do_not_give_counts_nowhere(recorded: World) -> None:
    """A report is derived: one a host appends saying otherwise is not the run's report."""
    ask(recorded, runs=1)
    reproduced(recorded, f"{RUN}~p1", "0")
    forged = ReproductionReported(
        request=f"{RUN}/reproduction/1",
        run_id=RUN,
        runs=[],
        same_outcome=True,
        differences=[Difference(field="network", original="none", now="none")],
    )
    recorded.ledger.append(recorded.ledger.next_versions([forged]))
    assert recorded.reads().latest().reproduction_reports == {}
    assert report_reproductions(reader(recorded), recorded.ledger) == [f"{RUN}/reproduction/1"]
    [report] = recorded.reads().latest().reproduction_reports.values()
    assert report.same_outcome is False


def test_a_run_that_did_not_record_what_it_ran_on_is_refused(world: World) -> None:
    world.ingest([agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE])
    world.ingest(runs("open-app", "public", "o"))  # no image digest, no instructions
    with pytest.raises(Rejected, match="recorded no image digest"):
        ask(world)
    with pytest.raises(Rejected, match="is not recorded"):
        world.act({"action": "request_reproduction", "run_id": "nope", "requested_by": "x"})
    assert world.ledger.stream(streams.reproduction(RUN)) == []
