"""Methodology section 11's verdict chain by the edition in force (issue 27, item 2): what is
planned after what, and the verdict it ends with, per edition; a chain test per edition for a
pass at once, a pass on retry, a pass only by the stronger agent, and a failure throughout."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime

import pytest

from domain.events import CycleOpened, Project, RunScheduled
from domain.runner.config import Budgets
from domain.runner.schedule import (
    Plan,
    Tried,
    chain_due,
    plan_chain,
    plan_cycle,
    retry_due,
    standing,
    stronger_due,
)
from domain.scoring import Outcome
from domain.verdict import Attempt, Verdict, verdict
from tests.domain.test_runner_schedule import AGENTS, agent

PLAN = Plan(Budgets(standard=90, heavy=120, gpu=120), 60, datetime(2026, 10, 1, 9, tzinfo=UTC))
APP = Project(id="octo/app", source_type="repository", pool="public", commit="c1")
CYCLE = CycleOpened(
    id="2026-10", opens=date(2026, 10, 1), agents=["a", "b"], projects=[APP], stronger_agent="s"
)
RETRY, STRONGER = "2026-10.a.octo_app.retry1", "2026-10.s.octo_app.stronger1"


def play(
    edition: str, outcomes: Mapping[str, Outcome], *, requested: bool = False
) -> tuple[list[str], Verdict]:
    """The chain run to its end: the standard attempts, then whatever it plans, one step at a
    time, each ending with the outcome `outcomes` gives its run id's last part (`standard2`,
    `retry1`) or its kind; what was planned after the standard attempts, and the verdict."""
    tried: dict[str, Tried] = {}
    attempts: list[Attempt] = []
    steps: list[str] = []

    def ran(run: RunScheduled) -> None:
        outcome = outcomes.get(run.run_id.rpartition(".")[2], outcomes[run.attempt])
        tried[run.run_id] = Tried(edition=edition, closed=True, outcome=outcome)
        attempts.append(Attempt(run.attempt, edition, outcome))

    for run in plan_cycle(
        CYCLE, AGENTS, edition, known=(), budgets=PLAN.budgets, grace_seconds=60, now=PLAN.now
    ):
        ran(run)
    asked = {APP.id} if requested else set()
    while due := plan_chain(CYCLE, AGENTS, tried.get, asked, PLAN).scheduled:
        assert len(steps) < 2, f"the chain plans on and on: {steps}, then {due}"
        for run in due:
            assert run.edition == edition
            steps.append(run.run_id)
            ran(run)
    return steps, verdict(attempts)


FAIL = {"standard": "fail", "retry": "fail", "stronger": "fail"}


@pytest.mark.parametrize(
    ("outcomes", "steps", "expected"),
    [
        pytest.param({**FAIL, "standard1": "pass_full"}, [], "works", id="pass-at-once"),
        pytest.param(
            {**FAIL, "retry": "pass_mock"}, [RETRY], "works_with_mocks", id="pass-on-retry"
        ),
        pytest.param(
            {**FAIL, "stronger": "pass_full"}, [RETRY, STRONGER], "works", id="pass-by-stronger"
        ),
        pytest.param(FAIL, [RETRY, STRONGER], "could_not_verify", id="fail-throughout"),
    ],
)
def test_chain_v1_0_standard_retry_stronger_stopping_at_the_first_pass(
    outcomes: dict[str, Outcome], steps: list[str], expected: Verdict
) -> None:
    assert play("1.0", outcomes) == (steps, expected)


@pytest.mark.parametrize(
    ("outcomes", "requested", "steps", "expected"),
    [
        pytest.param({**FAIL, "standard1": "pass_full"}, False, [], "works", id="pass-at-once"),
        pytest.param(  # the standard agent's second full attempt is its retry
            {**FAIL, "standard2": "pass_mock"}, False, [], "works_with_mocks", id="pass-on-retry"
        ),
        pytest.param(
            {**FAIL, "stronger": "pass_full"}, True, [STRONGER], "works", id="pass-by-stronger"
        ),
        pytest.param(
            {**FAIL, "stronger": "pass_full"},
            False,
            [],
            "could_not_verify",
            id="no-stronger-unasked",
        ),
        pytest.param(FAIL, True, [STRONGER], "could_not_verify", id="fail-throughout"),
        pytest.param(FAIL, False, [], "could_not_verify", id="fail-throughout-unasked"),
    ],
)
def test_chain_v1_5_two_full_standard_attempts_decide_the_stronger_agent_on_request(
    outcomes: dict[str, Outcome], requested: bool, steps: list[str], expected: Verdict
) -> None:
    assert play("1.5", outcomes, requested=requested) == (steps, expected)


def closed(outcome: Outcome | None, edition: str = "1.0") -> Tried:
    return Tried(edition=edition, closed=True, outcome=outcome)


RUNNING = Tried(edition="1.0", closed=False, outcome=None)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        pytest.param({}, "open", id="not-scheduled"),
        pytest.param({"x": RUNNING}, "open", id="running"),
        pytest.param({"x": closed("fail")}, "failed", id="failed"),
        pytest.param({"x": closed("timeout")}, "failed", id="timed-out"),
        pytest.param({"x": closed("pass_mock")}, "passed", id="passed"),
        pytest.param({"x": closed(None)}, "void", id="invalid-nothing-repeats-it"),
        pytest.param({"x": closed(None), "x~r2": RUNNING}, "open", id="cut-short-rerun-running"),
        pytest.param({"x": closed(None), "x~r2": closed("fail")}, "failed", id="rerun-failed"),
        pytest.param(
            {"x": closed(None), "x~r2": closed(None), "x~r3": closed("pass_full")},
            "passed",
            id="third-generation-passed",
        ),
    ],
)
def test_standing_follows_an_attempt_over_its_reruns(runs: dict[str, Tried], expected: str) -> None:
    assert standing("x", runs.get) == expected


def test_retry_due_only_once_every_standard_attempt_ended_without_a_pass() -> None:
    assert retry_due(["failed", "failed", "void"])
    assert not retry_due(["failed", "open"])  # one still to end
    assert not retry_due(["failed", "passed"])  # a pass ends the chain
    assert not retry_due(["void", "void"])  # nothing failed: nothing to retry


def test_stronger_due_only_after_a_valid_failed_retry() -> None:
    assert stronger_due("failed")
    assert not stronger_due("passed")
    assert not stronger_due("void")  # cut short: its rerun decides, never the invalid run
    assert not stronger_due("open")


def failing(edition: str, *extra: tuple[str, Tried]) -> dict[str, Tried]:
    """Every standard attempt of CYCLE failed under `edition`, and `extra`."""
    runs = plan_cycle(
        CYCLE, AGENTS, edition, known=(), budgets=PLAN.budgets, grace_seconds=60, now=PLAN.now
    )
    return {r.run_id: closed("fail", edition) for r in runs} | dict(extra)


def test_before_v1_3_no_retry_while_a_standard_attempt_is_still_running() -> None:
    runs = failing("1.2", ("2026-10.b.octo_app.standard3", RUNNING))
    assert chain_due(CYCLE, APP, "1.2", runs.get, requested=False) == []


def test_before_v1_3_an_invalid_retry_waits_for_its_rerun_and_plans_no_second_retry() -> None:
    runs = failing("1.2", (RETRY, closed(None, "1.2")))
    assert plan_chain(CYCLE, AGENTS, runs.get, (), PLAN).scheduled == []
    runs[f"{RETRY}~r2"] = closed("fail", "1.2")
    assert [r.run_id for r in plan_chain(CYCLE, AGENTS, runs.get, (), PLAN).scheduled] == [STRONGER]


def test_before_v1_3_a_cycle_without_a_stronger_agent_ends_after_the_retry() -> None:
    alone = CycleOpened(id="2026-10", opens=date(2026, 10, 1), agents=["a", "b"], projects=[APP])
    runs = failing("1.0", (RETRY, closed("fail")))
    assert plan_chain(alone, AGENTS, runs.get, (), PLAN).scheduled == []
    attempts = [Attempt("standard", "1.0", "fail"), Attempt("retry", "1.0", "fail")]
    assert verdict(attempts, stronger=False) == "could_not_verify"
    assert verdict(attempts) == "not_yet_verified"


def test_the_chain_follows_the_edition_its_standard_attempts_were_scheduled_under() -> None:
    runs = failing("1.2")  # scheduled before v1.3 came into force: retried, whatever came since
    [retry] = plan_chain(CYCLE, AGENTS, runs.get, (), PLAN).scheduled
    assert (retry.run_id, retry.attempt, retry.agent.id, retry.edition) == (
        RETRY,
        "retry",
        "a",
        "1.2",
    )
    assert plan_chain(CYCLE, AGENTS, failing("1.3").get, (), PLAN).scheduled == []


def test_the_stronger_agent_on_request_once_whatever_the_edition() -> None:
    for edition in ("1.2", "1.5"):
        runs = failing(edition)
        [stronger] = [
            r
            for r in plan_chain(CYCLE, AGENTS, runs.get, {APP.id}, PLAN).scheduled
            if r.attempt == "stronger"
        ]
        assert (stronger.run_id, stronger.agent.id) == (STRONGER, "s")
        runs[STRONGER] = RUNNING
        assert STRONGER not in [
            r.run_id for r in plan_chain(CYCLE, AGENTS, runs.get, {APP.id}, PLAN).scheduled
        ]


def test_nothing_is_planned_before_the_standard_attempts_are_scheduled() -> None:
    assert plan_chain(CYCLE, AGENTS, dict[str, Tried]().get, {APP.id}, PLAN).scheduled == []


def test_an_agent_without_a_runtime_waits_named() -> None:
    runs = failing("1.5")
    chain = plan_chain(CYCLE, {**AGENTS, "s": agent("s", runtime=False)}, runs.get, {APP.id}, PLAN)
    assert chain.scheduled == []
    assert chain.waiting == {STRONGER: "agent s has no runtime to run it with (section 4)"}
