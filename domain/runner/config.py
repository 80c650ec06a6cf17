"""The orchestrator's configuration as the rules see it: budgets per tier, the key's spending
limit, the sandbox's limits (methodology section 7)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.events.base import Value
from domain.events.methodology import Network

Minutes = Annotated[float, msgspec.Meta(gt=0)]


class Budgets(Value, frozen=True):
    """Methodology section 7, point 3: one of exactly three budgets, in minutes."""

    standard: Minutes
    heavy: Minutes
    gpu: Minutes


class KeyPolicy(Value, frozen=True):
    """Methodology section 7, "La clave del modelo": the per-run key's spending limit; and
    section 6a: a run that needs a GPU has its own, configured apart ("su presupuesto se
    decide por separado")."""

    limit_usd: Annotated[float, msgspec.Meta(gt=0)]
    gpu_limit_usd: Annotated[float, msgspec.Meta(gt=0)]


class SandboxPolicy(Value, frozen=True):
    network: Network = "none"
    grace_seconds: Annotated[float, msgspec.Meta(ge=0)] = 300
    concurrency: Annotated[int, msgspec.Meta(ge=1)] = 1
    memory_mb: Annotated[int, msgspec.Meta(ge=16)] = 8192
    cpus: Annotated[float, msgspec.Meta(gt=0)] = 2.0
    pids: Annotated[int, msgspec.Meta(ge=16)] = 4096
    capabilities: list[str] = msgspec.field(default_factory=list)
    docker_timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 60
    keys_timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 20
    sweep_seconds: Annotated[float, msgspec.Meta(gt=0)] = 60
    """Section 7, "un barrido programado": how often every worker sweeps, besides at start."""


class OrchestratorConfig(Value, frozen=True):
    budgets: Budgets
    keys: KeyPolicy
    sandbox: SandboxPolicy = msgspec.field(default_factory=SandboxPolicy)
