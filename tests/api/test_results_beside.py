"""What the pages put beside each result (issue 28, deliverables 3 and 4): a sponsored agent's
sponsor on its leaderboard row, its runs and its projects' attempts (section 13); each attempt's
final-state sentence on the project page as on the run page, and the attempt that verified the
project (sections 11 and 16). JSON and HTML say the same."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.api.test_publication import CYCLE, agent, approve, runs
from tests.api.world import World

SPONSOR = "Compute Co"
HTML = {"accept": "text/html"}
SAID = "It starts \u2014 the server answers on port 8080"
SHOWN = "It starts, the server answers on port 8080"


def test_the_sponsor_and_the_agents_own_words_stand_beside_each_result(
    world: World, public: TestClient[Any]
) -> None:
    world.ingest([agent("agent-a") | {"sponsor": SPONSOR}, agent("agent-b"), CYCLE])
    records = runs("open-app", "public", "o")
    for record in records:
        record["report"] = record["report"] | {"final_state": SAID}
    world.ingest(records)
    approve(world)
    rows = {r["agent"]: r for r in public.get("/leaderboard?cycle=2026-09").json()["rows"]}
    assert (rows["agent-a"]["sponsor"], rows["agent-b"]["sponsor"]) == (SPONSOR, None)
    assert public.get("/runs/o-agent-a-0").json()["sponsor"] == SPONSOR
    assert public.get("/runs/o-agent-b-0").json()["sponsor"] is None
    project = public.get("/projects/open-app").json()
    by_agent = {a["agent"]: a for a in project["attempts"]}
    assert (by_agent["agent-a"]["sponsor"], by_agent["agent-b"]["sponsor"]) == (SPONSOR, None)
    assert {a["final_state_shown"] for a in project["attempts"]} == {SHOWN}
    assert project["verdict"] == "works"
    assert project["verified_by"]["run_id"] == "o-agent-a-0"  # the first full pass
    for path in ("/leaderboard?cycle=2026-09", "/runs/o-agent-a-0", "/projects/open-app"):
        assert f"sponsored by {SPONSOR}" in public.get(path, headers=HTML).text, path
    assert "sponsored by" not in public.get("/runs/o-agent-b-0", headers=HTML).text
    page = public.get("/projects/open-app", headers=HTML).text
    assert f"<q>{SHOWN}</q>" in page
    assert 'id="verified-by">Verified by agent-a' in page
    assert SHOWN in public.get("/runs/o-agent-a-0", headers=HTML).text
