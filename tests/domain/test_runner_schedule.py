"""Planning a cycle's runs (methodology section 7, point 4, and section 11)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from domain.errors import Rejected
from domain.events import AgentRegistered, AgentRuntime, CycleOpened, Project
from domain.runner.config import Budgets
from domain.runner.schedule import plan_cycle

NOW = datetime(2026, 10, 1, 9, tzinfo=UTC)
BUDGETS = Budgets(standard=90, heavy=120, gpu=120)


def agent(agent_id: str, runtime: bool = True) -> AgentRegistered:
    return AgentRegistered(
        id=agent_id,
        label=agent_id.upper(),
        model="m",
        model_version="1",
        harness="h",
        harness_version="1",
        key="per_run",
        runtime=AgentRuntime(image="argusic/baseline:1", command=["/agent/run"])
        if runtime
        else None,
    )


AGENTS = {a: agent(a) for a in ("a", "b", "s")}
PROJECTS = [
    Project(id="octo/app", source_type="repository", pool="public", commit="c1"),
    Project(id="octo/game", source_type="repository", pool="secret", commit="c2", heavy=True),
]
CYCLE = CycleOpened(
    id="2026-10", opens=date(2026, 10, 1), agents=["a", "b"], projects=PROJECTS, stronger_agent="s"
)


def plan(edition: str, known: set[str] | None = None) -> list[str]:
    runs = plan_cycle(
        CYCLE, AGENTS, edition, known=known or set(), budgets=BUDGETS, grace_seconds=60, now=NOW
    )
    return [r.run_id for r in runs]


def test_plan_cycle_three_standard_runs_per_agent_and_project_from_v1_3() -> None:
    planned = plan("1.5")
    assert len(planned) == 2 * 2 * 3
    assert planned[:3] == [f"2026-10.a.octo_app.standard{n}" for n in (1, 2, 3)]
    assert not any("stronger" in r for r in planned)  # only on request from v1.3


def test_plan_cycle_before_v1_3_plans_no_stronger_agent_up_front() -> None:
    planned = plan("1.2")  # the chain plans it once the retry failed (test_verdict_chain)
    assert len(planned) == 2 * 2 * 3
    assert all(r.endswith(("standard1", "standard2", "standard3")) for r in planned)


def test_plan_cycle_twice_adds_nothing() -> None:
    assert plan("1.5", set(plan("1.5"))) == []


def test_plan_cycle_budgets_by_tier() -> None:
    runs = plan_cycle(CYCLE, AGENTS, "1.5", known=set(), budgets=BUDGETS, grace_seconds=60, now=NOW)
    assert {(r.project.id, r.tier, r.budget_seconds) for r in runs} == {
        ("octo/app", "standard", 5400.0),
        ("octo/game", "heavy", 7200.0),
    }


def test_plan_cycle_refuses_an_agent_without_a_runtime() -> None:
    with pytest.raises(Rejected, match="agent a has no runtime"):
        plan_cycle(
            CYCLE,
            {**AGENTS, "a": agent("a", runtime=False)},
            "1.5",
            known=set(),
            budgets=BUDGETS,
            grace_seconds=60,
            now=NOW,
        )
