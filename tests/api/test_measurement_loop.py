"""The measurement loop closed (issue 27's acceptance), on PostgreSQL with the real engine and the
key stand-in: an environment review, a dispute ruled `rerun`, a withheld recording, an aborted run
and an `invalidate_runs` of three runs each end with their reruns executed by `argusic worker`,
linked both ways; the next publication gives the leaderboard the seed's rules give, and the
figures as of the earlier publication answer the same bytes."""

from __future__ import annotations

import subprocess
import threading
import time
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.sandbox_images import BASELINE_IMAGE
from api.services.run_attempt import execute
from api.services.worker import claim
from api.wiring import orchestrator_config
from domain.events import RerunRequested, streams
from tests.api.test_publication import approve
from tests.api.world import World, review
from tests.conftest import ARGUSIC
from tests.records import run
from tests.runner_fixtures import Rig, config_text, fixture_repository

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

AGENTS = ("agent-a", "agent-b")
RUNTIME = {"image": BASELINE_IMAGE, "command": ["/agent/run"]}
BROKEN_CAST = '{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "compiling un'


@pytest.fixture
def world(rig: Rig) -> World:
    """The operator's side of the rig's ledger, with budgets a real run fits in (60 s)."""
    (rig.folder / "orchestrator.toml").write_text(config_text(standard=1.0, grace=5))
    rig.runner.config = orchestrator_config(rig.env)
    rig.runner.rerun_delay_seconds = 0  # the aborted run's rerun is claimable at once
    return World(rig.ledger, rig.folder)


def project(fixture: str, rig: Rig) -> dict[str, Any]:
    url, commit = rig.repos[fixture] = fixture_repository(fixture, rig.folder)
    return {
        "id": fixture,
        "source_type": "repository",
        "pool": "public",
        "repo": url,
        "commit": commit,
    }


def originals(world: World, works: dict[str, Any], fails: dict[str, Any]) -> None:
    """Three runs per agent on each project: every run of `fails` failed (so it is under
    review); agent-a passed `works` (its second run's recording does not parse), agent-b scored 40
    on it three times."""
    world.ingest(
        [
            {
                "kind": "agent",
                "id": a,
                "label": f"Argusic {a}",
                "model": "scripted",
                "model_version": "1",
                "harness": "baseline",
                "harness_version": "1",
                "key": "per_run",
                "runtime": RUNTIME,
            }
            for a in AGENTS
        ]
        + [
            {
                "kind": "cycle",
                "id": "2026-09",
                "opens": "2026-09-01",
                "agents": list(AGENTS),
                "projects": [works, fails],
            }
        ]
    )
    (world.folder / "broken.cast").write_text(BROKEN_CAST)
    records = []
    for a in AGENTS:
        for i in range(3):
            for target, score in ((works, "100" if a == "agent-a" else "40"), (fails, "no-start")):
                record = run(f"{target['id']}.{a}.{i}", target["id"], a, score)
                record |= {"agent": {"id": a}, "project": target}
                records.append(record)
    records[2]["evidence"] = {"log": "run.log", "cast": "broken.cast"}  # works.agent-a.1
    world.ingest(records)


def abort_one(rig: Rig) -> None:
    """A run whose sandbox is killed from outside: cut short by us, so it is run again (its
    rerun, left alone, uses its 5 s budget up)."""
    rig.schedule("outlasts-budget", "r-aborted", budget=5)

    def kill_when_running() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with_sandbox = rig.state("r-aborted")
            if with_sandbox.phase == "running":
                time.sleep(0.5)
                rig.runner.sandboxes.api.kill(with_sandbox.sandbox)  # type: ignore[attr-defined]
                return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    claimed = claim(rig.runner, rig.state("r-aborted"), "w-first")  # this run alone, no loop
    assert claimed is not None
    assert execute(rig.runner, claimed).ended == "aborted"
    killer.join()


def test_every_decision_that_asks_for_a_run_again_is_run(
    rig: Rig, world: World, public: TestClient[Any], cli_env: dict[str, str]
) -> None:
    works = project("installs-and-runs", rig)
    fails = project("fails-to-install", rig)
    abort_one(rig)
    originals(world, works, fails)
    first = approve(world)
    before = public.get(f"/leaderboard?cycle=2026-09&as_of={first}").content
    assert [
        r.event.why for r in rig.ledger.stream(streams.rerun("installs-and-runs.agent-a.1"))
    ] == [  # type: ignore[attr-defined]
        "withheld_recording"
    ]

    world.act(review("fails-to-install", "environment", "the image lacked a compiler"))
    world.act(
        {
            "action": "dispute_open",
            "run_id": "installs-and-runs.agent-a.0",
            "claimant": "a maintainer",
            "claim": "the network was down",
        }
    )
    world.act(
        {
            "action": "dispute_resolve",
            "dispute": "installs-and-runs.agent-a.0.1",
            "outcome": "rerun",
            "note": "our network",
        }
    )
    world.act(
        {
            "action": "invalidate_runs",
            "runs": [f"installs-and-runs.agent-b.{i}" for i in range(3)],
            "reason": "the harness misread the reports",
            "rerun": True,
        }
    )

    worker = subprocess.run(
        [ARGUSIC, "worker", "--once", "--worker-id", "w-loop", "--json"],
        env={**cli_env, **rig.env},
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert worker.returncode == 0, worker.stderr
    asked = {
        "installs-and-runs.agent-a.0": "dispute",
        "installs-and-runs.agent-a.1": "withheld_recording",
        "r-aborted": "aborted",
        **{f"installs-and-runs.agent-b.{i}": "invalidated" for i in range(3)},
        **{f"fails-to-install.{a}.{i}": "environment_review" for a in AGENTS for i in range(3)},
    }
    for run_id, why in asked.items():
        requests = [r.event for r in rig.ledger.stream(streams.rerun(run_id))]
        assert [r.why for r in requests if isinstance(r, RerunRequested)] == [why], run_id
        assert rig.state(f"{run_id}~r2").phase == "closed", run_id  # executed by the worker
        assert rig.recorded(f"{run_id}~r2") is not None, run_id

    second = approve(world)
    for run_id in asked.keys() - {"r-aborted"}:
        replaced, again = (
            public.get(f"/runs/{run_id}").json(),
            public.get(f"/runs/{run_id}~r2").json(),
        )
        assert (replaced["replaced_by"], again["replaces"]) == (f"{run_id}~r2", run_id)
        assert replaced["valid"] is False
    rows = {
        r["agent"]: r
        for r in public.get(f"/leaderboard?cycle=2026-09&as_of={second}").json()["rows"]
    }
    # section 9: agent-a's reruns passed in place of the disputed and withheld runs; agent-b's
    # three invalidated 40s are replaced by three passes; the project failing in every agent's
    # reruns too stays under review (section 15)
    assert (rows["agent-a"]["score"], rows["agent-b"]["score"]) == (100.0, 100.0)
    for row in rows.values():
        statuses = {p["project"]: p["status"] for p in row["projects"]}
        assert statuses == {"installs-and-runs": "counted", "fails-to-install": "under_review"}
    assert public.get(f"/leaderboard?cycle=2026-09&as_of={first}").content == before
