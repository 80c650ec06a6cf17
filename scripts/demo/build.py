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

HERE = Path(__file__).resolve().parent

PASS_FULL = {
    "installed": True,
    "started": True,
    "errors_found": 0,
    "errors_fixed": 0,
    "test_depth": "tier1_real",
    "verified_how": "printf out.txt; cat -> 5 bytes decoded, no errors",
    "final_state": "Serves on 127.0.0.1:8080; output decoded without errors.",
}
REPORTS: dict[str, tuple[str, dict[str, Any] | None]] = {
    # profile: (evidence file stem, report)
    "pass_full": ("pass_full", PASS_FULL),
    "pass_mock": (
        "pass_mock",
        {
            "installed": True,
            "started": True,
            "errors_found": 2,
            "errors_fixed": 2,
            "test_depth": "tier2_mock",
            "verified_how": "test suite against the mock service -> 12 passed",
            "final_state": "Runs against a mocked API; real credentials were not available.",
        },
    ),
    "unverified": (
        "unverified",
        {
            "installed": True,
            "started": True,
            "errors_found": 1,
            "errors_fixed": 1,
            "test_depth": "tier3_none",
            "verified_how": "not verified",
            "final_state": "The server process started; nothing was verified.",
        },
    ),
    "half_fixed": (
        "unverified",
        {
            "installed": True,
            "started": True,
            "errors_found": 2,
            "errors_fixed": 1,
            "test_depth": "tier3_none",
            "verified_how": "not verified",
            "final_state": "Started after fixing one of two errors \u2014 not verified",
        },
    ),
    "no_start": (
        "no_start",
        {
            "installed": True,
            "started": False,
            "errors_found": 2,
            "errors_fixed": 1,
            "test_depth": "tier3_none",
            "verified_how": "not verified",
            "final_state": "Installed; could not start.",
        },
    ),
    "native_module": (
        "no_start",
        {
            "installed": True,
            "started": False,
            "errors_found": 0,
            "errors_fixed": 0,
            "test_depth": "tier3_none",
            "verified_how": "not verified",
            "final_state": "Installed; the start failed on a missing native module.",
        },
    ),
    "claimed_depth": (
        "no_start",
        {
            "installed": True,
            "started": False,
            "errors_found": 3,
            "errors_fixed": 0,
            "test_depth": "tier1_real",
            "verified_how": "not verified",
            "final_state": "Installed; start failed, so nothing to verify.",
        },
    ),
    "no_install": (
        "no_install",
        {
            "installed": False,
            "started": True,
            "errors_found": 0,
            "errors_fixed": 0,
            "test_depth": "tier1_real",
            "verified_how": "not verified",
            "final_state": "Claimed a start without an install.",
        },
    ),
    "timeout": ("timeout", None),
    "cut_short": ("pass_full", PASS_FULL),
}

AGENTS = {
    # id: (label, model, model version, sponsor)
    "demo-agent-a": ("Argusic Agent A", "demo-model-a", "2026-08-01", None),
    "demo-agent-b": ("Argusic Agent B", "demo-model-b", "2026-07-15", None),
    "demo-agent-c": ("Argusic Agent C", "demo-model-c", "2026-08-20", "Demo Compute Sponsor"),
    "demo-agent-d": ("Argusic Agent D", "demo-model-d", "2026-06-30", None),
    "demo-agent-strong": ("Argusic Stronger Agent", "demo-model-strong", "2026-08-25", None),
}

PROJECTS: dict[str, dict[str, Any]] = {
    "demo/pixel-forge": {"heavy": True, "description": "A pixel-art editor \u2014 with layers"},
    "demo/tile-server": {},
    "demo/ghost-build": {},
    "demo/cleared-app": {},
    "demo/tiny-diffusion": {"source_type": "huggingface_model"},
    "demo/mock-api": {},
    "demo/legacy-cli": {},
    "demo/early-bird": {},
    "demo/two-strikes": {},
    "demo/half-way": {},
    "demo/hidden-gem": {"pool": "secret"},
    "demo/night-owl": {},
    "demo/quiet-vault": {"pool": "secret"},
}
CYCLES = {
    "2026-09": {
        "opens": "2026-09-01",
        "agents": ["demo-agent-a", "demo-agent-b", "demo-agent-c", "demo-agent-d"],
        "stronger_agent": "demo-agent-strong",
        "projects": [p for p in PROJECTS if p not in ("demo/night-owl", "demo/quiet-vault")],
    },
    "2026-10": {
        "opens": "2026-10-01",
        "agents": ["demo-agent-a", "demo-agent-b", "demo-agent-c"],
        "stronger_agent": None,
        "projects": ["demo/pixel-forge", "demo/night-owl", "demo/quiet-vault"],
    },
}

# (cycle, project, agent, edition, attempt, day, profiles): one line a set or an attempt chain.
SEPTEMBER = [
    (
        "demo/pixel-forge",
        "demo-agent-a",
        "1.2",
        "standard",
        4,
        ["pass_full", "pass_full", "pass_mock"],
    ),
    (
        "demo/pixel-forge",
        "demo-agent-b",
        "1.1",
        "standard",
        4,
        ["unverified", "pass_mock", "pass_full"],
    ),
    (
        "demo/pixel-forge",
        "demo-agent-c",
        "1.3",
        "standard",
        5,
        ["half_fixed", "pass_full", "pass_full"],
    ),
    ("demo/tile-server", "demo-agent-a", "1.3", "standard", 6, ["timeout", "timeout", "no_start"]),
    ("demo/tile-server", "demo-agent-b", "1.3", "standard", 6, ["timeout", "timeout", "timeout"]),
    (
        "demo/tile-server",
        "demo-agent-c",
        "1.4",
        "standard",
        7,
        ["pass_full", "pass_full", "pass_full"],
    ),
    (
        "demo/ghost-build",
        "demo-agent-a",
        "1.4",
        "standard",
        7,
        ["native_module", "native_module", "claimed_depth"],
    ),
    (
        "demo/ghost-build",
        "demo-agent-d",
        "1.4",
        "standard",
        7,
        ["timeout", "no_start", "no_install"],
    ),
    (
        "demo/ghost-build",
        "demo-agent-c",
        "1.4",
        "standard",
        8,
        ["unverified", "unverified", "unverified"],
    ),
    ("demo/ghost-build", "demo-agent-b", "1.4", "standard", 8, ["no_start", "no_start", "timeout"]),
    (
        "demo/tile-server",
        "demo-agent-d",
        "1.4",
        "standard",
        8,
        ["timeout", "claimed_depth", "no_start"],
    ),
    ("demo/cleared-app", "demo-agent-a", "1.4", "standard", 9, ["native_module"] * 3),
    ("demo/cleared-app", "demo-agent-b", "1.4", "standard", 9, ["native_module"] * 3),
    ("demo/cleared-app", "demo-agent-c", "1.4", "standard", 9, ["native_module"] * 3),
    ("demo/cleared-app", "demo-agent-d", "1.4", "standard", 9, ["native_module"] * 3),
    (
        "demo/tiny-diffusion",
        "demo-agent-a",
        "1.4",
        "standard",
        10,
        ["pass_full", "pass_mock", "pass_full"],
    ),
    (
        "demo/tiny-diffusion",
        "demo-agent-b",
        "1.4",
        "standard",
        10,
        ["pass_mock", "pass_mock", "unverified"],
    ),
    ("demo/mock-api", "demo-agent-a", "1.4", "standard", 11, ["pass_mock"]),
    ("demo/legacy-cli", "demo-agent-b", "1.2", "standard", 4, ["no_start"]),
    ("demo/legacy-cli", "demo-agent-b", "1.2", "retry", 4, ["timeout"]),
    ("demo/legacy-cli", "demo-agent-strong", "1.2", "stronger", 5, ["no_start"]),
    ("demo/early-bird", "demo-agent-b", "1.2", "standard", 4, ["unverified"]),
    ("demo/early-bird", "demo-agent-b", "1.2", "retry", 4, ["unverified"]),
    ("demo/two-strikes", "demo-agent-c", "1.4", "standard", 12, ["claimed_depth"]),
    ("demo/two-strikes", "demo-agent-c", "1.4", "retry", 12, ["timeout"]),
    ("demo/half-way", "demo-agent-c", "1.4", "standard", 12, ["half_fixed"]),
    ("demo/half-way", "demo-agent-c", "1.4", "retry", 12, ["cut_short"]),
    (
        "demo/hidden-gem",
        "demo-agent-a",
        "1.4",
        "standard",
        13,
        ["pass_full", "pass_full", "pass_full"],
    ),
]
ENVIRONMENT_REVIEW = {
    "action": "review",
    "project": "demo/cleared-app",
    "cycle": "2026-09",
    "finding": "environment",
    "note": "a system package was missing from the image; fixed, the runs are repeated",
}
RERUNS = [
    (
        "demo/cleared-app",
        "demo-agent-a",
        "1.4",
        "standard",
        14,
        ["pass_full", "pass_full", "pass_full"],
    ),
    (
        "demo/cleared-app",
        "demo-agent-b",
        "1.4",
        "standard",
        14,
        ["pass_mock", "pass_full", "pass_mock"],
    ),
    (
        "demo/cleared-app",
        "demo-agent-c",
        "1.4",
        "standard",
        14,
        ["pass_full", "pass_full", "unverified"],
    ),
    (
        "demo/cleared-app",
        "demo-agent-d",
        "1.4",
        "standard",
        14,
        ["no_start", "no_start", "no_start"],
    ),
]
DISPUTED = "demo-010"
"""demo/tile-server's first timeout for demo-agent-a: its maintainer disputes it."""
DISPUTE = [
    {
        "action": "dispute_open",
        "run_id": DISPUTED,
        "claimant": "maintainer of demo/tile-server",
        "claim": "the run timed out while the machine's package mirror was down",
    },
    {
        "action": "dispute_resolve",
        "dispute": f"{DISPUTED}.1",
        "outcome": "rerun",
        "note": "the recording shows the package mirror refusing every connection; run again",
    },
    {
        "action": "dispute_open",
        "run_id": "demo-023",
        "claimant": "maintainer of demo/ghost-build",
        "claim": "the agent could have started it with the documented flag",
    },
    {
        "action": "dispute_resolve",
        "dispute": "demo-023.1",
        "outcome": "upheld",
        "note": "the recording shows the agent trying the documented flag; the start still failed",
    },
]
DISPUTE_RERUN = [
    ("demo/tile-server", "demo-agent-a", "1.4", "standard", 15, ["no_start"]),
]
OCTOBER_APPROVED = [
    (
        "demo/night-owl",
        "demo-agent-a",
        "1.5",
        "standard",
        2,
        ["pass_full", "pass_full", "pass_full"],
    ),
    (
        "demo/night-owl",
        "demo-agent-b",
        "1.5",
        "standard",
        2,
        ["pass_mock", "pass_mock", "pass_mock"],
    ),
    (
        "demo/quiet-vault",
        "demo-agent-a",
        "1.5",
        "standard",
        3,
        ["pass_full", "pass_full", "pass_full"],
    ),
]
OCTOBER_UNAPPROVED = [
    (
        "demo/night-owl",
        "demo-agent-c",
        "1.5",
        "standard",
        4,
        ["unverified", "pass_full", "pass_full"],
    ),
]


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
