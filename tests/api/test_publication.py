"""The publication boundary over HTTP, on SQLite and PostgreSQL (methodology sections 1, 5, 6,
18 and 19): the public sees exactly what an operator approved, never the secret pool of an open
cycle, never an agent's configuration before its cycle is published; a dispute's rerun changes
the public figures only once recorded and approved, and the evidence never changes."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api.wiring import Settings
from tests.api.world import World
from tests.records import run

SECRET_MODEL = "acme-secret-model-9"
ROSTER = ["agent-a", "agent-b"]


def agent(agent_id: str) -> dict[str, Any]:
    return {
        "kind": "agent",
        "id": agent_id,
        "label": f"Argusic {agent_id}",
        "model": SECRET_MODEL if agent_id == "agent-a" else "m",
        "model_version": "2026-08-01",
        "harness": "h",
        "harness_version": "1.0",
        "key": "per_run",
    }


def project(project_id: str, pool: str = "public") -> dict[str, Any]:
    return {"id": project_id, "source_type": "repository", "pool": pool, "commit": "c0ffee"}


CYCLE = {
    "kind": "cycle",
    "id": "2026-09",
    "opens": "2026-09-01",
    "agents": ROSTER,
    "projects": [project("open-app"), project("vault", "secret")],
}


def runs(project_id: str, pool: str, prefix: str) -> list[dict[str, Any]]:
    made = []
    for a in ROSTER:
        for i in range(3):
            record = run(f"{prefix}-{a}-{i}", project_id, a, "100")
            record["agent"] = {"id": a}
            record["project"] = project(project_id, pool)
            made.append(record)
    return made


@pytest.fixture
def world(world: World) -> World:
    world.ingest([agent(a) for a in ROSTER] + [CYCLE])
    world.ingest(runs("open-app", "public", "o") + runs("vault", "secret", "s"))
    return world


def approve(world: World) -> int:
    position = world.ledger.size()
    world.act({"action": "approve_publication", "position": position})
    return position


def every_public_answer(client: TestClient) -> dict[str, Any]:  # type: ignore[type-arg]
    paths = [
        "/leaderboard?cycle=2026-09",
        "/projects/open-app",
        "/projects/vault",
        "/runs/o-agent-a-0",
        "/runs/s-agent-a-0",
        "/runs/s-agent-a-0/trace",
        "/runs/s-agent-a-0/evidence/log",
        "/methodology/sources",
        "/agents?cycle=2026-09",
    ]
    return {path: client.get(path) for path in paths}


def test_before_any_approval_the_public_sees_no_figure(public: TestClient) -> None:  # type: ignore[type-arg]
    board = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert (board["as_of"], board["rows"], board["approved"]) == (0, [], None)
    for path in ("/projects/open-app", "/runs/o-agent-a-0", "/agents?cycle=2026-09"):
        assert public.get(path).status_code == 404, path
    for answer in every_public_answer(public).values():
        assert SECRET_MODEL not in answer.text  # not before the cycle's first publication


def test_after_an_approval_exactly_that_position_until_the_next(
    world: World,
    public: TestClient,  # type: ignore[type-arg]
) -> None:
    at = approve(world)
    board = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert (board["as_of"], board["approved"]["position"]) == (at, at)
    assert board["approved"]["note"].split("\n")[1] == str(at)  # the signed checkpoint
    assert [(r["agent"], r["attempts"]) for r in board["rows"]] == [("agent-a", 3), ("agent-b", 3)]
    world.ingest(
        [
            run("late", "open-app", "agent-a", "92")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    assert public.get("/leaderboard", params={"cycle": "2026-09"}).json() == board
    assert public.get("/runs/late").status_code == 404
    assert (
        public.get("/leaderboard", params={"cycle": "2026-09", "as_of": at + 1}).status_code == 404
    )
    approve(world)
    assert public.get("/runs/late").status_code == 200
    roster = public.get("/agents", params={"cycle": "2026-09"}).json()
    assert [a["model"] for a in roster["agents"]] == [SECRET_MODEL, "m"]  # published with it


def test_a_secret_project_is_absent_until_its_cycle_is_closed(
    world: World,
    public: TestClient,  # type: ignore[type-arg]
) -> None:
    approve(world)
    answers = every_public_answer(public)
    for path in ("/projects/vault", "/runs/s-agent-a-0", "/runs/s-agent-a-0/trace"):
        assert answers[path].status_code == 404, path
    assert answers["/runs/s-agent-a-0/evidence/log"].status_code == 404  # never 451
    board = answers["/leaderboard?cycle=2026-09"].json()
    assert "vault" not in answers["/leaderboard?cycle=2026-09"].text
    assert [r["projects_counted"] for r in board["rows"]] == [1, 1]
    assert answers["/methodology/sources"].json()["sources"][0]["projects_tested"] == 1
    assert [p["id"] for p in answers["/agents?cycle=2026-09"].json()["projects"]] == ["open-app"]
    world.act({"action": "close_cycle", "cycle": "2026-09"})
    assert public.get("/projects/vault").status_code == 404  # closed, not yet approved
    approve(world)
    answers = every_public_answer(public)
    for path in ("/projects/vault", "/runs/s-agent-a-0", "/runs/s-agent-a-0/trace"):
        assert answers[path].status_code == 200, path
    board = answers["/leaderboard?cycle=2026-09"].json()
    assert [r["projects_counted"] for r in board["rows"]] == [2, 2]
    assert answers["/methodology/sources"].json()["sources"][0]["projects_tested"] == 2


def test_a_dispute_rerun_changes_the_public_figures_only_once_recorded_and_approved(
    world: World,
    public: TestClient,
    settings: Settings,  # type: ignore[type-arg]
) -> None:
    world.ingest(
        [
            run("o-agent-a-3", "open-app", "agent-a", "no-start")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    first = approve(world)
    evidence = files(settings.home)
    board = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert board["rows"][0]["score"] == 100.0  # 100, 100, 100, 30: the middle of four
    world.act(
        {
            "action": "dispute_open",
            "run_id": "o-agent-a-3",
            "claimant": "maintainer",
            "claim": "the mirror was down",
        }
    )
    world.act(
        {
            "action": "dispute_resolve",
            "dispute": "o-agent-a-3.1",
            "outcome": "rerun",
            "note": "the recording shows the mirror down",
        }
    )
    voided_at = approve(world)
    page = public.get("/runs/o-agent-a-3").json()
    assert page["valid"] is False
    assert page["invalid_reason"] == (
        "corrected after dispute o-agent-a-3.1: the recording shows the mirror down"
    )
    assert [(d["dispute"], d["outcome"]) for d in page["disputes"]] == [("o-agent-a-3.1", "rerun")]
    before = public.get("/runs/o-agent-a-3", params={"as_of": first}).json()
    assert (before["valid"], before["score"]) == (True, 30.0)  # its old figures, by position
    world.ingest(
        [
            run("o-agent-a-4", "open-app", "agent-a", "92")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    unchanged = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert unchanged["as_of"] == voided_at
    approve(world)
    after = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert (after["rows"][0]["score"], after["rows"][0]["attempts"]) == (100.0, 4)
    assert files(settings.home) | evidence == files(settings.home)  # nothing edited or removed
    assert {k: v for k, v in files(settings.home).items() if k in evidence} == evidence


def files(home: Path) -> dict[str, str]:
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in home.rglob("*")
        if p.is_file() and "artifacts" in p.parts
    }
