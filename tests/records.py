"""Input records for tests, built the way a harness writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RUNTIME = {"image": "argusic/baseline:1", "command": ["/agent/run"]}
"""The baseline image's agent, as a runner worker starts it."""


def schedulable_agent(agent_id: str) -> dict[str, Any]:
    """An agent record with a runtime, so its runs can be scheduled."""
    return {
        "kind": "agent",
        "id": agent_id,
        "label": f"Argusic {agent_id}",
        "model": "m",
        "model_version": "2026-08-01",
        "harness": "h",
        "harness_version": "1.0",
        "key": "per_run",
        "runtime": RUNTIME,
    }


def report(installed: bool, started: bool, found: int, fixed: int, depth: str) -> dict[str, Any]:
    return {
        "installed": installed,
        "started": started,
        "errors_found": found,
        "errors_fixed": fixed,
        "test_depth": depth,
    }


# A report per score the rubric gives (methodology section 8); "T" is a timeout.
REPORTS: dict[str, dict[str, Any] | None] = {
    "100": report(True, True, 0, 0, "tier1_real"),
    "92": report(True, True, 2, 2, "tier2_mock"),
    "80": report(True, True, 1, 1, "tier3_none"),
    "70": report(True, True, 2, 1, "tier3_none"),
    "no-start": report(True, False, 0, 0, "tier3_none"),  # 30: it went wrong, nothing found
    "40": report(True, False, 2, 1, "tier3_none"),
    "30": report(True, False, 3, 0, "tier1_real"),
    "T": None,
}


def run(
    run_id: str,
    project: str,
    agent: str,
    score: str,
    *,
    cycle: str = "2026-09",
    edition: str = "1.3",
    attempt: str = "standard",
    day: int = 10,
    source_type: str = "repository",
    pool: str = "public",
    log: str | None = "run.log",
    cast: str | None = "run.cast",
    status: str | None = None,
    invalid_reason: str | None = None,
) -> dict[str, Any]:
    return {
        "kind": "run",
        "run_id": run_id,
        "cycle": cycle,
        "edition": edition,
        "project": {"id": project, "source_type": source_type, "pool": pool},
        "agent": {
            "id": agent,
            "model": "m",
            "model_version": "2026-08-01",
            "harness": "h",
            "harness_version": "1.0",
        },
        "attempt": attempt,
        "started_at": f"2026-09-{day:02d}T10:00:00Z",
        "finished_at": f"2026-09-{day:02d}T10:40:00Z",  # within every budget
        "status": status or ("timeout" if score == "T" else "finished"),
        "invalid_reason": invalid_reason,
        "report": REPORTS[score],
        "evidence": {"log": log, "cast": cast},
    }


EDITIONS = [
    {"kind": "edition", "version": v, "drafted": d, "summary": f"edition {v}"}
    for v, d in [
        ("1.1", "2026-09-04"),
        ("1.2", "2026-09-05"),
        ("1.3", "2026-09-05"),
        ("1.4", "2026-09-07"),
    ]
]


def write(folder: Path, name: str, records: list[dict[str, Any]]) -> Path:
    """A JSON-lines file of records beside a log and a recording they can name."""
    (folder / "run.log").write_text("$ make\nok\n")
    (folder / "run.cast").write_text(
        '{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "ok\\r\\n"]\n'
    )
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
