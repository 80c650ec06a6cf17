"""The demo's data: reports by profile, agents, projects, cycles, and each cycle's runs as
(project, agent, edition, attempt, day, profiles) rows; `build.py` writes the records."""

from __future__ import annotations

from typing import Any

PASS_FULL = {
    "installed": True,
    "started": True,
    "errors_found": 0,
    "errors_fixed": 0,
    "test_depth": "tier1_real",
    "verified_how": "cat out.txt -> hello",
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
