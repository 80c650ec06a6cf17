"""Budgets, deadlines and names of the runner (methodology section 7)."""

from __future__ import annotations

from datetime import timedelta

import msgspec
import pytest

from domain.events import AgentRuntime, Project
from domain.runner.budgets import (
    budget_seconds,
    budget_tier,
    pid1_seconds,
    run_deadline,
    timeout_at,
)
from domain.runner.config import Budgets
from domain.runner.endings import agent_end, budget_end
from domain.runner.naming import key_name, parse_key_name, rerun_delay, rerun_id, sandbox_name
from domain.runner.sandbox import agent_environment, sandbox_image, virtual_display
from tests.runner_events import T0, scheduled


def project(**fields: object) -> Project:
    return Project(id="p", source_type="repository", pool="public", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "edition", "tier"),
    [
        ({}, "1.5", "standard"),
        ({"heavy": True}, "1.5", "heavy"),
        ({"repo_size_mb": 501}, "1.5", "heavy"),
        ({"repo_size_mb": 500}, "1.5", "standard"),
        ({"heavy": True}, "1.1", "standard"),  # heavy exists from v1.2
        ({"needs_gpu": True}, "1.0", "gpu"),
        ({"needs_gpu": True, "heavy": True}, "1.5", "gpu"),
    ],
)
def test_budget_tier(fields: dict[str, object], edition: str, tier: str) -> None:
    assert budget_tier(project(**fields), edition) == tier


def test_budget_seconds_from_configured_minutes() -> None:
    budgets = Budgets(standard=90, heavy=120, gpu=120)
    assert [budget_seconds(t, budgets) for t in ("standard", "heavy", "gpu")] == [5400, 7200, 7200]
    assert budget_seconds("standard", Budgets(standard=0.05, heavy=1, gpu=1)) == 3


def test_run_deadline_is_budget_plus_grace_from_the_claim() -> None:
    assert run_deadline(T0, 5400, 300) == T0 + timedelta(minutes=95)
    assert timeout_at(T0, 3) == T0 + timedelta(seconds=3)


def test_pid1_lives_until_the_deadline_rounded_up() -> None:
    assert pid1_seconds(T0, T0 + timedelta(seconds=9.2)) == 10
    assert pid1_seconds(T0, T0 - timedelta(seconds=5)) == 1


def test_sandbox_names_are_unique_per_attempt_and_safe() -> None:
    a = sandbox_name("2026-10/agent a:1", 1, "n1")
    assert a == "argusic-run-2026-10_agent_a_1-c1-n1"
    assert sandbox_name("2026-10/agent a:1", 2, "n1") != a
    assert sandbox_name("2026-10/agent a:1", 1, "n2") != a


def test_key_names_give_back_their_owner() -> None:
    name = key_name("L1", "run:with:colons", 3)
    owner = parse_key_name(name)
    assert owner is not None
    assert (owner.ledger, owner.claim, owner.run_id) == ("L1", 3, "run:with:colons")
    for foreign in ("my-key", "argusic-run:", "argusic-run:L1:x3:r", "argusic-run:L1:c2:"):
        assert parse_key_name(foreign) is None


def test_rerun_ids_count_up() -> None:
    assert rerun_id("r1") == "r1~r2"
    assert rerun_id("r1~r2") == "r1~r3"


def test_rerun_delay_doubles_per_generation_capped() -> None:
    assert [rerun_delay(r, 60) for r in ("r1", "r1~r2", "r1~r3")] == [60, 120, 240]
    assert rerun_delay("r1~r40", 60) == 3600


def test_budget_end_is_a_timeout_only_with_the_whole_budget() -> None:
    assert budget_end(T0, T0 + timedelta(seconds=1)) == ("timed_out", None)
    assert budget_end(T0, T0) == ("timed_out", None)
    ended, reason = budget_end(T0 + timedelta(seconds=1), T0)
    assert ended == "aborted"
    assert reason is not None


@pytest.mark.parametrize(
    ("exit_code", "running", "oom", "ended"),
    [
        (0, True, False, "exited"),
        (3, True, False, "exited"),
        (137, True, False, "exited"),  # the agent's own command was killed: its exit
        (137, False, False, "aborted"),  # killed from outside
        (None, True, True, "aborted"),  # out of memory
        (0, True, True, "aborted"),
        (None, True, False, "aborted"),  # nobody can read the exit
    ],
)
def test_agent_end(exit_code: int | None, running: bool, oom: bool, ended: str) -> None:
    assert agent_end(exit_code, running, oom)[0] == ended


@pytest.mark.parametrize(
    ("desktop", "edition", "display"),
    [
        (True, "1.1", ":99"),
        (True, "1.5", ":99"),
        (True, "1.0", None),  # the virtual display exists from v1.1
        (False, "1.5", None),
    ],
)
def test_virtual_display(desktop: bool, edition: str, display: str | None) -> None:
    assert virtual_display(project(desktop=desktop), edition) == display


def test_a_desktop_run_gets_its_display_and_the_desktop_image() -> None:
    desktop = msgspec.structs.replace(
        scheduled(),
        project=project(desktop=True),
        runtime=AgentRuntime(image="plain", command=["/agent/run"], desktop_image="desktop"),
    )
    given, shown = agent_environment(desktop, "http://model", "secret")
    assert (sandbox_image(desktop), shown["DISPLAY"], given["DISPLAY"]) == ("desktop", ":99", ":99")
    plain = msgspec.structs.replace(desktop, project=project())
    assert sandbox_image(plain) == "plain"
    assert "DISPLAY" not in agent_environment(plain, "http://model", None)[1]
