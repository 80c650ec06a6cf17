"""Writes the demo (`scripts/demo/*.jsonl`), the same bytes every time:
`python scripts/demo/build.py`. Agents, two cycles (September, closed, its secret pool
published; October, open, its secret project unpublished), runs, a signed environment review,
a dispute with its rerun and one upheld, and the approval that makes it public. The demo is
labelled as such: `demo/` projects and `demo-agent-*` agents; its logs and recordings are real
terminal sessions of stand-in commands, not of the named projects."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from table import (  # the demo's data, beside this script
    AGENTS,
    CYCLES,
    DISPUTE,
    DISPUTE_RERUN,
    ENVIRONMENT_REVIEW,
    OCTOBER_APPROVED,
    OCTOBER_UNAPPROVED,
    PROJECTS,
    REPORTS,
    RERUNS,
    SEPTEMBER,
)

HERE = Path(__file__).resolve().parent


def budget_minutes(edition: str, project: dict[str, Any]) -> int:
    """The demo's own copy of the section 7 table, to set how long a timeout took."""
    version = tuple(int(p) for p in edition.split("."))
    if project.get("heavy") and version >= (1, 2):
        return 120
    return 90 if version >= (1, 3) else 45


def project_record(project_id: str) -> dict[str, Any]:
    fields = PROJECTS[project_id]
    number = list(PROJECTS).index(project_id) + 1
    return {
        "id": project_id,
        "source_type": fields.get("source_type", "repository"),
        "repo": f"https://example.invalid/{project_id}",
        "commit": f"{number:040x}",
        "pool": fields.get("pool", "public"),
        "heavy": fields.get("heavy", False),
        "needs_gpu": False,
        "repo_size_mb": 12,
        **({"description": fields["description"]} if "description" in fields else {}),
    }


def runs(
    table: list[tuple[str, str, str, str, int, list[str]]], first: int, cycle: str = "2026-09"
) -> list[dict[str, Any]]:
    records, number = [], first
    month = int(cycle[5:])
    for project_id, agent, edition, attempt, day, profiles in table:
        project = project_record(project_id)
        for profile in profiles:
            stem, report = REPORTS[profile]
            started = datetime(2026, month, day, 10, tzinfo=UTC) + timedelta(minutes=number)
            took = budget_minutes(edition, project) if profile == "timeout" else 40
            records.append(
                {
                    "kind": "run",
                    "run_id": f"demo-{number:03d}",
                    "cycle": cycle,
                    "edition": edition,
                    "project": project,
                    "agent": {"id": agent},
                    "attempt": attempt,
                    "started_at": started.isoformat().replace("+00:00", "Z"),
                    "finished_at": (started + timedelta(minutes=took))
                    .isoformat()
                    .replace("+00:00", "Z"),
                    "status": {"timeout": "timeout", "cut_short": "invalid"}.get(
                        profile, "finished"
                    ),
                    "invalid_reason": "the harness could not read the agent's report"
                    if profile == "cut_short"
                    else None,
                    "report": report,
                    "evidence": {"log": f"evidence/{stem}.log", "cast": f"evidence/{stem}.cast"},
                }
            )
            number += 1
    return records


def agent_records() -> list[dict[str, Any]]:
    return [
        {
            "kind": "agent",
            "id": agent,
            "label": label,
            "model": model,
            "model_version": version,
            "harness": "demo-harness",
            "harness_version": "1.0",
            "key": "per_run",
            "sponsor": sponsor,
        }
        for agent, (label, model, version, sponsor) in AGENTS.items()
    ]


def cycle_records() -> list[dict[str, Any]]:
    return [
        {
            "kind": "cycle",
            "id": cycle,
            "opens": c["opens"],
            "agents": c["agents"],
            "stronger_agent": c["stronger_agent"],
            "projects": [project_record(p) for p in c["projects"]],
        }
        for cycle, c in CYCLES.items()
    ]


def write(name: str, records: list[dict[str, Any]]) -> None:
    (HERE / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def main() -> None:
    """The files `argusic demo` reads in order: records are ingested, `.actions.jsonl` lines are
    signed by the demo's owner and submitted; `publish` approves the head for the public."""
    for stale in HERE.glob("[0-9]*.jsonl"):
        if not stale.name.startswith("00-"):
            stale.unlink()
    write("05-agents.jsonl", agent_records())
    write("06-cycles.jsonl", cycle_records())
    september = runs(SEPTEMBER, 1)
    write("10-runs.jsonl", september)
    write("20-review.actions.jsonl", [ENVIRONMENT_REVIEW])
    reruns = runs(RERUNS, len(september) + 1)
    write("30-reruns.jsonl", reruns)
    write("40-disputes.actions.jsonl", DISPUTE)
    numbered = len(september) + len(reruns) + 1
    write("45-dispute-rerun.jsonl", runs(DISPUTE_RERUN, numbered))
    write("50-close.actions.jsonl", [{"action": "close_cycle", "cycle": "2026-09"}])
    write("60-runs.jsonl", runs(OCTOBER_APPROVED, 101, "2026-10"))
    write("70-publish.actions.jsonl", [{"action": "approve_publication", "position": "head"}])
    write("80-runs.jsonl", runs(OCTOBER_UNAPPROVED, 201, "2026-10"))


if __name__ == "__main__":
    main()
