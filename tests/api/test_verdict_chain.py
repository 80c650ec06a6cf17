"""Section 11's verdict chain by the edition in force (issue 27, item 2), through the schedule
service on the ledger (SQLite and PostgreSQL): before v1.3 a retry only once the standard runs
failed, then the stronger agent, none after a pass; from v1.5 no stronger run without a signed
`request_stronger` and exactly one with it; the verdicts of section 11 and the page linking the
log where each attempt stopped."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from api.services.schedule import schedule, schedule_chain
from api.wiring import orchestrator_config
from domain.errors import Rejected
from domain.events import StrongerRequested
from ledger.ledger import Ledger, NewEvent
from ledger.verify import verify
from projections.methodology import MethodologyProjection
from tests.api.test_publication import approve
from tests.api.world import OWNER, World
from tests.at_once import at_once
from tests.conftest import argusic
from tests.records import run, schedulable_agent

CONFIG = orchestrator_config({})
CYCLE_ID = "2026-10"
APP = {"id": "octo/app", "source_type": "repository", "pool": "public", "commit": "c0ffee"}
PREFIX = f"{CYCLE_ID}.agent-a.octo_app"
RETRY, STRONGER = f"{PREFIX}.retry1", f"{CYCLE_ID}.agent-s.octo_app.stronger1"
SCORES = {"pass_full": "100", "pass_mock": "92", "fail": "no-start"}


CYCLE = {
    "kind": "cycle",
    "id": CYCLE_ID,
    "opens": "2026-10-01",
    "agents": ["agent-a", "agent-b"],
    "projects": [APP],
    "stronger_agent": "agent-s",
}


@pytest.fixture
def edition(request: pytest.FixtureRequest) -> str:
    """The edition in force (v1.0 unless a test names another, indirectly)."""
    return str(getattr(request, "param", "1.0"))


@pytest.fixture
def world(ledger: Ledger, tmp_path: Path, edition: str) -> World:
    """A ledger whose only edition, so the one in force, is `edition`, with the roster, the
    stronger agent and the cycle, its pool published (section 6)."""
    editions = [{"kind": "edition", "version": edition, "drafted": "2026-08-31", "summary": "e"}]
    world = World(ledger, tmp_path, editions)
    world.ingest([schedulable_agent(a) for a in ("agent-a", "agent-b", "agent-s")] + [CYCLE])
    world.publish()
    return world


def on(*editions: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("edition", editions, indirect=True)


DECODING = "ffmpeg -v error -i out.mp4 -f null -"


def decoded_cast(folder: Path) -> str:
    """A recording that shows the decoding a passing report names (section 16, from v1.4)."""
    shown = json.dumps([0.5, "o", f"$ {DECODING}\r\n$ "])
    (folder / "decoded.cast").write_text(f'{{"version": 2, "width": 80, "height": 24}}\n{shown}\n')
    return "decoded.cast"


def record(world: World, run_ids: list[str], outcome_of: dict[str, str]) -> None:
    """Each scheduled run recorded as its harness reports it, with the outcome `outcome_of`
    gives its id's last part (`standard2`) or its kind (`retry`)."""
    board = RunBoard(world.ledger).refresh().runs
    records = []
    for run_id in run_ids:
        scheduled = board[run_id].scheduled
        outcome = outcome_of.get(run_id.rpartition(".")[2], outcome_of[scheduled.attempt])
        made = run(
            run_id,
            APP["id"],
            scheduled.agent.id,
            SCORES[outcome],
            cycle=CYCLE_ID,
            edition=scheduled.edition,
            attempt=scheduled.attempt,
        )
        if outcome == "pass_full":  # from v1.4 a real pass names the decoding it saw
            made["report"] = made["report"] | {"verified_how": f"{DECODING} -> no errors"}
            made["evidence"] = made["evidence"] | {"cast": decoded_cast(world.folder)}
        records.append(made | {"agent": {"id": scheduled.agent.id}, "project": APP})
    world.ingest(records)


def play(world: World, outcome_of: dict[str, str]) -> list[str]:
    """`schedule --cycle` again and again, each run it schedules recorded with its outcome,
    until it schedules nothing; what it scheduled after the standard runs."""
    standard = schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled
    assert len(standard) == 6  # three per roster agent, never a retry or stronger run up front
    record(world, standard, outcome_of)
    steps: list[str] = []
    while scheduled := schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled:
        steps += scheduled
        record(world, scheduled, outcome_of)
    return steps


FAIL = {"standard": "fail", "retry": "fail", "stronger": "fail"}
CHAINS = {  # edition, case: outcomes, steps, verdict
    ("1.0", "pass at once"): ({**FAIL, "standard1": "pass_full"}, [], "works"),
    ("1.0", "pass on retry"): ({**FAIL, "retry": "pass_mock"}, [RETRY], "works_with_mocks"),
    ("1.0", "pass by stronger"): ({**FAIL, "stronger": "pass_full"}, [RETRY, STRONGER], "works"),
    ("1.0", "fail throughout"): (FAIL, [RETRY, STRONGER], "could_not_verify"),
    ("1.5", "pass at once"): ({**FAIL, "standard1": "pass_full"}, [], "works"),
    ("1.5", "pass on retry"): ({**FAIL, "standard2": "pass_mock"}, [], "works_with_mocks"),
    ("1.5", "pass by stronger"): ({**FAIL, "stronger": "pass_full"}, [], "could_not_verify"),
    ("1.5", "fail throughout"): (FAIL, [], "could_not_verify"),
}


@pytest.mark.parametrize(
    "case", ["pass at once", "pass on retry", "pass by stronger", "fail throughout"]
)
@on("1.0", "1.5")
def test_the_chain_of_each_edition_gives_section_11s_verdicts(
    world: World, edition: str, case: str
) -> None:
    outcomes, steps, expected = CHAINS[edition, case]
    assert play(world, outcomes) == steps
    assert world.project(APP["id"]).verdict == expected


def test_before_v1_3_a_retry_only_once_every_standard_run_is_recorded(world: World) -> None:
    standard = schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled
    record(world, standard[:-1], FAIL)
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == []
    assert world.project(APP["id"]).verdict == "not_yet_verified"
    record(world, standard[-1:], FAIL)
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == [RETRY]
    assert world.project(APP["id"]).verdict == "not_yet_verified"  # the chain goes on


def ask(world: World) -> int:
    return world.act(
        {"action": "request_stronger", "project": APP["id"], "cycle": CYCLE_ID}
    ).position


@pytest.mark.parametrize(
    ("case", "expected"), [("pass by stronger", "works"), ("fail throughout", "could_not_verify")]
)
@on("1.5")
def test_from_v1_5_the_stronger_agent_runs_once_on_a_signed_request(
    world: World, case: str, expected: str
) -> None:
    outcomes, _, _ = CHAINS["1.5", case]
    assert play(world, outcomes) == []
    ask(world)
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == [STRONGER]
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == []  # once
    record(world, [STRONGER], outcomes)
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == []
    assert world.project(APP["id"]).verdict == expected
    stronger = RunBoard(world.ledger).refresh().runs[STRONGER].scheduled
    assert (stronger.agent.id, stronger.attempt, stronger.edition) == ("agent-s", "stronger", "1.5")


@on("1.5")
def test_a_stronger_request_appended_without_a_signed_action_counts_nowhere(world: World) -> None:
    play(world, FAIL)
    approve(world)  # a signed action in the ledger, deciding something else
    bare = StrongerRequested(project=APP["id"], cycle=CYCLE_ID, operator="rita")
    world.ledger.append([NewEvent(bare, 1)])
    assert world.reads().latest().stronger_requested == {}
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == []
    [problem] = verify(world.ledger).problems  # `ledger verify` names it
    assert problem.position == world.ledger.size()
    assert "StrongerRequested without authority" in problem.reason


@pytest.mark.parametrize(
    ("action", "named"),
    [
        ({"cycle": "2027-01"}, "cycle 2027-01 has no record"),
        ({"project": "octo/elsewhere"}, "project octo/elsewhere is not in cycle 2026-10's pool"),
    ],
)
def test_a_request_for_what_is_not_there_is_refused_naming_the_rule(
    world: World, action: dict[str, str], named: str
) -> None:
    approve(world)  # the owner's key registered
    size = world.ledger.size()
    with pytest.raises(Rejected, match=re.escape(f"{named} (section 11)")):
        world.act({"action": "request_stronger", "project": APP["id"], "cycle": CYCLE_ID} | action)
    assert world.ledger.size() == size


def test_a_cycle_without_a_stronger_agent_or_asked_twice_refuses(world: World) -> None:
    world.ingest([CYCLE | {"id": "2026-11", "opens": "2026-11-01", "stronger_agent": None}])
    with pytest.raises(Rejected, match="cycle 2026-11 names no stronger agent"):
        world.act({"action": "request_stronger", "project": APP["id"], "cycle": "2026-11"})
    at = ask(world)
    with pytest.raises(Rejected, match=f"was asked for at {at + 1}"):
        ask(world)


def test_schedulers_at_once_schedule_each_step_once(world: World) -> None:
    standard = schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled
    record(world, standard, FAIL)

    def scheduler() -> None:
        reader = ProjectionReader(world.ledger, MethodologyProjection())
        schedule_chain(reader, RunBoard(world.ledger), CONFIG, world.ledger.clock)

    assert at_once(scheduler) == []
    assert [r for r in RunBoard(world.ledger).refresh().runs if "standard" not in r] == [RETRY]


def test_could_not_verify_links_the_log_where_each_attempt_stopped(
    world: World, public: TestClient[Any]
) -> None:
    play(world, FAIL)
    approve(world)
    document = public.get(f"/projects/{APP['id']}").json()
    page = public.get(f"/projects/{APP['id']}", headers={"accept": "text/html"}).text
    assert document["verdict"] == "could_not_verify"
    logs = [a["log"] for a in document["attempts"]]
    assert len(logs) == 8
    assert logs == [f"/runs/{a['run_id']}/evidence/log" for a in document["attempts"]]
    for log in logs:
        assert f'href="{log}"' in page
    assert "Where each attempt stopped" in page


@on("1.5")
def test_request_stronger_from_the_cli(world: World, cli_env: dict[str, str]) -> None:
    play(world, FAIL)
    approve(world)  # the owner's key registered
    command = ["request-stronger", "--project", APP["id"], "--cycle", CYCLE_ID, "--as", OWNER]
    asked = argusic(cli_env, *command, "--json")
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["action"] == "request_stronger"
    again = argusic(cli_env, *command)
    assert again.returncode == 1
    assert "was asked for at" in again.stderr
    assert schedule(world.ledger, CYCLE_ID, CONFIG, world.ledger.clock).scheduled == [STRONGER]
