"""Writes the demo's run and review records (`scripts/demo/*.jsonl`) from the table below, the
same bytes every time: `python scripts/demo/build.py`. The demo is labelled as such: `demo/`
projects and `demo-agent-*` agents; its logs and recordings are real terminal sessions of
stand-in commands, not of the named projects."""

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
    "demo-agent-a": ("demo-model-a", "2026-08-01"),
    "demo-agent-b": ("demo-model-b", "2026-07-15"),
    "demo-agent-c": ("demo-model-c", "2026-08-20"),
    "demo-agent-d": ("demo-model-d", "2026-06-30"),
    "demo-agent-strong": ("demo-model-strong", "2026-08-25"),
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
}

# (project, agent, edition, attempt, day, profiles): one line a set or an attempt chain.
CYCLE_2026_09 = [
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
    ("demo/hidden-gem", "demo-agent-a", "1.4", "standard", 13, ["pass_full"]),
]
ENVIRONMENT_REVIEW = {
    "kind": "review",
    "project": "demo/cleared-app",
    "cycle": "2026-09",
    "finding": "environment",
    "reviewer": "demo-reviewer",
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
    table: list[tuple[str, str, str, str, int, list[str]]], first: int
) -> list[dict[str, Any]]:
    records, number = [], first
    for project_id, agent, edition, attempt, day, profiles in table:
        project = project_record(project_id)
        model, version = AGENTS[agent]
        for profile in profiles:
            stem, report = REPORTS[profile]
            started = datetime(2026, 9, day, 10, tzinfo=UTC) + timedelta(minutes=number)
            took = budget_minutes(edition, project) if profile == "timeout" else 40
            records.append(
                {
                    "kind": "run",
                    "run_id": f"demo-{number:03d}",
                    "cycle": "2026-09",
                    "edition": edition,
                    "project": project,
                    "agent": {
                        "id": agent,
                        "model": model,
                        "model_version": version,
                        "harness": "demo-harness",
                        "harness_version": "1.0",
                    },
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


def write(name: str, records: list[dict[str, Any]]) -> None:
    (HERE / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def main() -> None:
    september = runs(CYCLE_2026_09, 1)
    write("10-runs.jsonl", september)
    write("20-reviews.jsonl", [ENVIRONMENT_REVIEW])
    write("30-reruns.jsonl", runs(RERUNS, len(september) + 1))


if __name__ == "__main__":
    main()
