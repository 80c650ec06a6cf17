"""`invalidate_runs` (issue 27, item 4; methodology section 20), on SQLite and PostgreSQL: recorded
runs set aside after the fact by one signed action, each with the reason and the action's
position on its document and page, asked for again when told; all or none; the public figures
move at the next approved publication, and `?as_of=` the earlier one answers as before, byte for
byte."""

from __future__ import annotations

import re
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.errors import Rejected
from tests.api.test_publication import CYCLE, ROSTER, agent, approve, runs
from tests.api.world import World

REASON = "the harness's clock skewed every run of the week (changelog v1.3)"
SET_ASIDE = ["o-agent-a-0", "o-agent-a-1", "o-agent-a-2"]
PUBLIC_PATHS = [
    "/leaderboard?cycle=2026-09",
    "/projects/open-app",
    *[f"/runs/{r}" for r in SET_ASIDE],
]


def invalidate(world: World, runs: list[str], *, rerun: bool = True) -> int:
    action = {"action": "invalidate_runs", "runs": runs, "reason": REASON, "rerun": rerun}
    return world.act(action).position


def answers(public: TestClient[Any], as_of: int | None = None) -> dict[str, bytes]:
    """Every public document the scenario touches, as served."""
    params = None if as_of is None else {"as_of": as_of}
    return {path: public.get(path, params=params).content for path in PUBLIC_PATHS}


@pytest.fixture
def published(world: World) -> int:
    """The scenario of `test_publication` (every run 100), approved for the public."""
    world.ingest([agent(a) for a in ROSTER] + [CYCLE])
    world.ingest(runs("open-app", "public", "o"))
    return approve(world)


def test_invalidated_runs_carry_the_reason_and_move_the_figures_at_the_next_approval(
    world: World, public: TestClient[Any], published: int
) -> None:
    before, then = answers(public), answers(public, published)
    acted_at = invalidate(world, SET_ASIDE)
    assert answers(public) == before  # nothing public moves before a person approves
    approve(world)
    for run_id in SET_ASIDE:
        document = public.get(f"/runs/{run_id}").json()
        assert (document["valid"], document["invalid_reason"]) == (False, REASON)
        assert document["invalidated_at"] == acted_at
        assert document["rerun_requested"] is not None
        [request] = [r.event for r in world.ledger.stream(f"rerun:{run_id}")]
        assert request.why == "invalidated"  # type: ignore[attr-defined]
        page = public.get(f"/runs/{run_id}", headers={"accept": "text/html"}).text
        assert f"signed action at position {acted_at}" in page
    kept = public.get("/runs/o-agent-b-0").json()
    assert (kept["valid"], kept["invalidated_at"]) == (True, None)
    board = public.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert [r["agent"] for r in board["rows"] if r["score"] is not None] == ["agent-b"]
    assert answers(public, published) == then


@pytest.mark.parametrize(
    ("runs", "named"),
    [
        (["o-agent-a-0", "no-such-run"], "run no-such-run is not recorded"),
        (["o-agent-a-0", "o-agent-a-0"], "run o-agent-a-0 is named twice"),
    ],
)
def test_one_bad_run_refuses_the_whole_action(
    runs: list[str], named: str, world: World, published: int
) -> None:
    size = world.ledger.size()
    with pytest.raises(Rejected, match=named):
        invalidate(world, runs)
    assert world.ledger.size() == size
    state = world.reads().latest()
    assert state.judge(state.runs["o-agent-a-0"]).invalid_reason is None


def test_a_run_already_invalid_refuses_the_whole_action(world: World, published: int) -> None:
    invalidate(world, ["o-agent-a-0"], rerun=False)
    size = world.ledger.size()
    with pytest.raises(Rejected, match=re.escape(f"run o-agent-a-0 is already invalid ({REASON})")):
        invalidate(world, ["o-agent-a-1", "o-agent-a-0"])
    assert world.ledger.size() == size
    state = world.reads().latest()
    assert state.judge(state.runs["o-agent-a-1"]).invalid_reason is None
    assert "o-agent-a-0" not in state.reruns  # rerun false: voided, not asked for again
