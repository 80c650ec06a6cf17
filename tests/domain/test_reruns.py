"""Planning the runs asked for again (issue 27, item 1): `<id>~r<N>` names, the original's
schedule kept, an ingested run's record and its agent's runtime, and what cannot be run yet."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from domain.events import AgentRegistered, AgentRuntime, RunRecorded, RunScheduled
from domain.runner.config import Budgets
from domain.runner.naming import replaced_run, rerun_id
from domain.runner.schedule import Plan, as_it_ran, plan_reruns

NOW = datetime(2026, 12, 3, tzinfo=UTC)
BUDGETS = Budgets(standard=90, heavy=120, gpu=120)


@pytest.mark.parametrize(
    ("run_id", "replaced"),
    [("r", None), ("r~r2", "r"), ("r~r3", "r~r2"), ("a~rb", None), ("x~r2~r4", "x~r2~r3")],
)
def test_a_rerun_names_the_run_it_repeats(run_id: str, replaced: str | None) -> None:
    assert replaced_run(run_id) == replaced
    if replaced is not None:
        assert rerun_id(replaced) == run_id


def recorded(run_id: str, agent: str) -> RunRecorded:
    return msgspec.convert(
        {
            "type": "RunRecorded",
            "run_id": run_id,
            "cycle": "2026-09",
            "edition": "1.5",
            "project": {"id": "p", "source_type": "repository", "pool": "public", "commit": "c1"},
            "agent": {
                "id": agent,
                "model": "m",
                "model_version": "1",
                "harness": "h",
                "harness_version": "1",
            },
            "attempt": "standard",
            "started_at": "2026-09-02T10:00:00Z",
            "finished_at": "2026-09-02T10:30:00Z",
            "status": "timeout",
            "invalid_reason": None,
            "report": None,
            "evidence": {},
            "budget_minutes": 90,
        },
        RunRecorded,
    )


def registered(agent: str, runtime: AgentRuntime | None) -> AgentRegistered:
    return AgentRegistered(
        id=agent,
        label=agent,
        model="m",
        model_version="1",
        harness="h",
        harness_version="1",
        key="per_run",
        runtime=runtime,
    )


def test_an_ingested_run_is_run_again_with_its_agents_runtime_or_waits_naming_why() -> None:
    runtime = AgentRuntime(image="argusic/baseline:1", command=["/agent/run"])
    agents = {"a": registered("a", runtime), "b": registered("b", None)}
    runs = {"r-a": recorded("r-a", "a"), "r-b": recorded("r-b", "b")}

    def as_ran(run_id: str) -> RunScheduled | str:
        return as_it_ran(run_id, None, runs.get(run_id), agents, Plan(BUDGETS, 300, NOW))

    planned = plan_reruns(["r-a", "r-b", "r-gone"], as_ran, known=set())
    [again] = planned.scheduled
    assert (again.run_id, again.replaces, again.runtime) == ("r-a~r2", "r-a", runtime)
    assert (again.project.commit, again.tier, again.budget_seconds) == ("c1", "standard", 90 * 60)
    assert planned.waiting == {
        "r-b": "agent b has no runtime to run it with (section 4)",
        "r-gone": "it is not recorded",
    }
    known = {"r-a~r2"}
    assert plan_reruns(["r-a"], as_ran, known=known).scheduled == []
