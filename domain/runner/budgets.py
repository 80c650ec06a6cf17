"""Budgets and deadlines (methodology section 7, point 3, and "La clave del modelo")."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import get_args

from domain.editions import version_key
from domain.events import Project, RunScheduled, Tier
from domain.runner.config import Budgets, KeyPolicy

HEAVY_REPOSITORY_MB = 500
HEAVY_FROM = (1, 2)
"""The edition the heavy tier exists from (v1.2)."""
TIERS: tuple[Tier, ...] = get_args(Tier)


def budget_tier(project: Project, edition: str) -> Tier:
    """Methodology section 7, point 3: a project that needs a GPU gets the gpu budget; one the
    Owner marks heavy, or whose repository is over 500 MB, gets heavy (from v1.2); every other
    project gets standard."""
    if project.needs_gpu:
        return "gpu"
    heavy = project.heavy or (project.repo_size_mb or 0) > HEAVY_REPOSITORY_MB
    return "heavy" if heavy and version_key(edition) >= HEAVY_FROM else "standard"


def needs_gpu(run: RunScheduled) -> bool:
    """Methodology section 6a: a project that needs a GPU (a Hugging Face model's inference)
    "necesita un worker con GPU"; so does every run of it, reruns and reproductions included."""
    return run.project.needs_gpu


def key_limit(run: RunScheduled, keys: KeyPolicy) -> float:
    """Methodology section 7, "La clave del modelo", and section 6a: the spending limit of the
    run's own key; a run that needs a GPU has its own limit, configured apart ("su presupuesto
    se decide por separado")."""
    return keys.gpu_limit_usd if needs_gpu(run) else keys.limit_usd


def budget_seconds(tier: Tier, budgets: Budgets) -> float:
    """Methodology section 7, point 3: the budget of a tier, as configured (minutes)."""
    minutes: float = getattr(budgets, tier)
    return round(minutes * 60, 3)


def run_deadline(claimed_at: datetime, budget: float, grace: float) -> datetime:
    """Methodology section 7, "La clave del modelo": a run is live from its claim until budget
    + grace; its key expires then, its sandbox's PID 1 dies then, and the sweeper may remove
    anything of it after."""
    return claimed_at + timedelta(seconds=budget + grace)


def timeout_at(started_at: datetime, budget: float) -> datetime:
    """Methodology section 7, point 3: when the agent's budget runs out."""
    return started_at + timedelta(seconds=budget)


def pid1_seconds(created_at: datetime, deadline: datetime) -> int:
    """How long the sandbox's own PID 1 lives: until the run's deadline, so the sandbox dies on
    its own when every orchestrator is gone (at least one second)."""
    return max(1, int((deadline - created_at).total_seconds() + 0.999))
