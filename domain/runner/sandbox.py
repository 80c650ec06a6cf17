"""What a run's sandbox is made of (methodology section 7, point 1): decided here, made by the
Docker adapter."""

from __future__ import annotations

from datetime import datetime

from domain.editions import version_key
from domain.events import Project, RunScheduled, SandboxLimits, Value
from domain.runner.budgets import needs_gpu
from domain.runner.config import SandboxPolicy
from domain.runner.naming import (
    LABEL_CLAIM,
    LABEL_DEADLINE,
    LABEL_LEDGER,
    LABEL_RUN,
    sandbox_name,
)

PINNED_ENVIRONMENT = {"TZ": "UTC", "LANG": "C.UTF-8"}
"""Section 7 point 1 ("su entorno exacto se publica"): the same zone and locale every run."""
VIRTUAL_DISPLAY = ":99"
SCREEN_FOLDER = "/tmp/.argusic-screen"
"""Where the virtual display's framebuffer is kept as it is drawn (Xvfb's `-fbdir`), for the
raw video the host records of it (section 17)."""
SCREEN_FILE = f"{SCREEN_FOLDER}/Xvfb_screen0"
VIRTUAL_DISPLAY_FROM = (1, 1)


class SandboxSpec(Value, frozen=True):
    name: str
    image: str
    labels: dict[str, str]
    limits: SandboxLimits
    pid1_seconds: int
    environment: dict[str, str]
    display: str | None = None
    """The virtual display PID 1 starts before the agent (desktop projects, from v1.1)."""


def sandbox_limits(policy: SandboxPolicy, *, gpu: bool = False) -> SandboxLimits:
    """The sandbox's limits as configured; with the host's GPUs only for a run that needs one
    (section 6a)."""
    return SandboxLimits(
        memory_bytes=policy.memory_mb << 20,
        nano_cpus=round(policy.cpus * 1e9),
        pids=policy.pids,
        network=policy.network,
        capabilities=sorted(policy.capabilities),
        gpu=gpu,
    )


def utc_label(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def virtual_display(project: Project, edition: str) -> str | None:
    """Methodology section 7 point 6 (from v1.1): a desktop application is started on a
    virtual display inside the sandbox; no other project gets one."""
    if project.desktop and version_key(edition) >= VIRTUAL_DISPLAY_FROM:
        return VIRTUAL_DISPLAY
    return None


def sandbox_image(run: RunScheduled) -> str:
    """The image the run needs: a reproduction's pinned digest; else the image class of its
    agent, the desktop image when it gets a display."""
    if run.image_digest is not None:
        return run.image_digest
    display = virtual_display(run.project, run.edition)
    return (display and run.runtime.desktop_image) or run.runtime.image


def pinned_environment(run: RunScheduled) -> dict[str, str]:
    """The zone, the locale and, for a desktop run, the display every process of it sees."""
    display = virtual_display(run.project, run.edition)
    return {**PINNED_ENVIRONMENT, **({"DISPLAY": display} if display else {})}


def sandbox_spec(
    run: RunScheduled,
    claim: int,
    deadline: datetime,
    *,
    ledger: str,
    nonce: str,
    policy: SandboxPolicy,
    pid1_seconds: int,
) -> SandboxSpec:
    """The single-use sandbox of one claim of a run: named uniquely, labelled with its owner
    and deadline so a sweeper finds it with no worker alive."""
    return SandboxSpec(
        name=sandbox_name(run.run_id, claim, nonce),
        image=sandbox_image(run),
        labels={
            LABEL_RUN: run.run_id,
            LABEL_DEADLINE: utc_label(deadline),
            LABEL_LEDGER: ledger,
            LABEL_CLAIM: str(claim),
        },
        limits=sandbox_limits(policy, gpu=needs_gpu(run)),
        pid1_seconds=pid1_seconds,
        environment=pinned_environment(run),
        display=virtual_display(run.project, run.edition),
    )


def agent_environment(
    run: RunScheduled, model_base_url: str, key: str | None
) -> tuple[dict[str, str], dict[str, str]]:
    """ARCHITECTURE.md "Runner": what the agent's command gets, and the same without the key
    (what is recorded)."""
    shown = {
        **pinned_environment(run),
        "ARGUSIC_RUN_ID": run.run_id,
        "ARGUSIC_BUDGET_SECONDS": f"{run.budget_seconds:g}",
        "ARGUSIC_MODEL_BASE_URL": model_base_url,
    }
    given = dict(shown)
    if key is not None:
        given[run.runtime.key_env] = key
    return given, shown
