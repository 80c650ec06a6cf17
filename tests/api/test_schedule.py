"""`argusic schedule --cycle C` through the real CLI, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import argusic
from tests.records import EDITIONS, schedulable_agent


def cycle(*agents: str) -> dict[str, object]:
    """Cycle 2026-10 of `agents`, its one project typed in the record."""
    return {
        "kind": "cycle",
        "id": "2026-10",
        "opens": "2026-10-01",
        "agents": list(agents),
        "projects": [
            {"id": "octo/app", "source_type": "repository", "pool": "public", "commit": "c1"}
        ],
    }


def test_schedule_plans_a_cycles_runs_once(cli_env: dict[str, str], tmp_path: Path) -> None:
    agents = [schedulable_agent(name) for name in ("agent-a", "agent-b")]
    records = tmp_path / "records.jsonl"
    records.write_text(
        "".join(json.dumps(r) + "\n" for r in [*EDITIONS, *agents, cycle("agent-a", "agent-b")])
    )
    assert argusic(cli_env, "init").returncode == 0
    assert argusic(cli_env, "ingest", str(records)).returncode == 0
    assert argusic(cli_env, "operator", "init", "rita").returncode == 0
    assert argusic(cli_env, "publish", "--as", "rita").returncode == 0
    first = json.loads(argusic(cli_env, "schedule", "--cycle", "2026-10", "--json").stdout)
    assert first["cycle"] == "2026-10"
    assert len(first["scheduled"]) == 6  # three runs per roster agent and project
    again = json.loads(argusic(cli_env, "schedule", "--cycle", "2026-10", "--json").stdout)
    assert again == {"cycle": "2026-10", "scheduled": [], "reruns_waiting": {}, "chain_waiting": {}}
    runs = json.loads(argusic(cli_env, "runs", "--state", "scheduled", "--json").stdout)["runs"]
    assert sorted(r["run_id"] for r in runs) == sorted(first["scheduled"])
    missing = argusic(cli_env, "schedule", "--cycle", "2027-01", "--json")
    assert missing.returncode == 1


def test_a_cycle_recorded_whole_is_scheduled_only_once_its_pool_is_published(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Section 6: the public pool "se publica antes de cada ciclo", typed in a cycle record too;
    a cycle recorded after a publication waits for one of its own."""
    assert argusic(cli_env, "init").returncode == 0
    assert argusic(cli_env, "operator", "init", "rita").returncode == 0

    def record(*records: dict[str, object]) -> None:
        path = tmp_path / "records.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        assert argusic(cli_env, "ingest", str(path)).returncode == 0

    def refused(cycle_id: str = "2026-10") -> str:
        answer = argusic(cli_env, "schedule", "--cycle", cycle_id)
        assert answer.returncode == 1
        return answer.stderr

    record(*EDITIONS, schedulable_agent("agent-a"), cycle("agent-a"))
    assert "cycle 2026-10: its public pool (fixed at position" in refused()
    assert argusic(cli_env, "publish", "--as", "rita").returncode == 0
    first = json.loads(argusic(cli_env, "schedule", "--cycle", "2026-10", "--json").stdout)
    assert len(first["scheduled"]) == 3
    record(cycle("agent-a") | {"id": "2026-11", "opens": "2026-11-01"})
    assert "cycle 2026-11: its public pool (fixed at position" in refused("2026-11")
