"""Facts of the runner: one run's lifecycle in a single-use sandbox, from its scheduling to its
closing (methodology section 7, points 1-6 and "La clave del modelo"; section 11).

A key's secret is never a field of any of these: only its hash (the provider's id), its name
and its limits (ARCHITECTURE.md, ledger guarantee 7).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from domain.events import streams
from domain.events.base import Event, Text, Value
from domain.events.evidence import Fingerprint
from domain.events.methodology import Agent, AgentRuntime, AttemptKind, Network, Project

KeyMode = Literal["per_run", "shared_vendor"]
"""How an agent reaches its model: a key created for each run, or the vendor's shared key."""
Tier = Literal["standard", "heavy", "gpu"]
"""Methodology section 7, point 3: the three budgets."""
Ended = Literal["exited", "timed_out", "cancelled", "aborted"]
"""How a run ended: the agent exited on its own, ran out of its budget, was cancelled, or was
cut short by Argusic's own tooling (invalid, never counted, run again)."""
Seconds = Annotated[float, msgspec.Meta(ge=0)]
Usd = Annotated[float, msgspec.Meta(ge=0)]


class SandboxLimits(Value, frozen=True):
    memory_bytes: int
    nano_cpus: int
    pids: int
    network: Network
    capabilities: list[str] = msgspec.field(default_factory=list)
    gpu: bool = False
    """Every GPU of the worker's host asked of the engine (section 6a: a run that needs a GPU,
    claimed only by a worker started with `--gpu`)."""


class _RunFact(Event, frozen=True):
    run_id: Text

    @property
    def stream(self) -> str:
        return streams.attempt(self.run_id)


class RunScheduled(_RunFact, frozen=True):
    """A run the cycle needs was planned, with its budget (section 7 point 3) fixed now."""

    cycle: str
    edition: str
    project: Project
    agent: Agent
    runtime: AgentRuntime
    key: KeyMode
    attempt: AttemptKind
    tier: Tier
    budget_seconds: Seconds
    grace_seconds: Seconds
    scheduled_at: datetime
    replaces: str | None = None
    """The run this one repeats (it was cut short by Argusic's tooling)."""
    not_before: datetime | None = None
    """A rerun waits this long, so a broken engine is not hammered in a loop."""
    image_digest: str | None = None
    """A reproduction's pinned machine image (section 18), run by digest, never by tag."""
    instructions_sha256: str | None = None
    """A reproduction's pinned standard instructions, by SHA-256 (published as evidence)."""
    reproduces: str | None = None
    """The run this one reproduces (section 18), with everything it ran with pinned."""


class RunClaimed(_RunFact, frozen=True):
    """A worker took the run, at the next version of its stream (so only one can); the run is
    live until `deadline` (budget + grace from now), and nothing of it outlives that."""

    worker: Text
    claim: Annotated[int, msgspec.Meta(ge=1)]
    claimed_at: datetime
    deadline: datetime


class ModelKeyRequested(_RunFact, frozen=True):
    """Written before asking the provider, so a key whose creation went unanswered is still
    found (by its name) and deleted."""

    claim: int
    key_name: Text
    limit_usd: Usd
    expires_at: datetime


class ModelKeyCreated(_RunFact, frozen=True):
    key_hash: Text
    key_name: Text
    limit_usd: Usd
    expires_at: datetime


class ModelKeyCreationFailed(_RunFact, frozen=True):
    """No key: the run is not started and is tried again after `retry_after`; never a shared
    key in its place (section 7, "La clave del modelo")."""

    reason: str
    retry_after: datetime


class SourceFetched(_RunFact, frozen=True):
    """The project's pinned commit only, without its history (section 7 point 1)."""

    commit: Text
    tree: Text
    """The commit's git tree id: what was copied into the sandbox."""
    archive_sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    method: Literal["git", "archive"]


class SandboxCreated(_RunFact, frozen=True):
    """The single-use machine (section 7 point 1): its image by digest, its limits, the
    environment it pins (without the key), and the deadline its own PID 1 dies at."""

    name: Text
    container_id: Text
    image: Text
    image_digest: Text
    limits: SandboxLimits
    budget_seconds: Seconds
    deadline: datetime
    environment: dict[str, str]
    """Every variable given to the agent but its key, which is named by `key_env` only."""
    key_env: str | None
    engine_version: str | None = None
    """The container engine's version (section 18: the exact environment is published)."""
    instructions_sha256: str | None = None
    """The standard instructions copied into the sandbox, by SHA-256 (sections 7 and 18)."""


class AgentStarted(_RunFact, frozen=True):
    started_at: datetime
    timeout_at: datetime
    """When the budget runs out: `started_at` + budget."""


class AgentExited(_RunFact, frozen=True):
    exit_code: int
    ended_at: datetime


class AgentTimedOut(_RunFact, frozen=True):
    """The agent used its whole budget (section 8: scores 0 on every line)."""

    ended_at: datetime


class RunCancelled(_RunFact, frozen=True):
    by: Text
    reason: str
    ended_at: datetime


class RunAborted(_RunFact, frozen=True):
    """Argusic's own tooling cut the run short (section 11): invalid, never counted, rerun."""

    reason: Text
    ended_at: datetime


class EvidenceStored(_RunFact, frozen=True):
    """The session's log and recording, fingerprinted as they will be kept: security-redacted
    (sections 7 point 5 and 17)."""

    log: Fingerprint
    cast: Fingerprint
    complete: bool
    """Whether the recording ran to the session's end (false after an orchestrator crash)."""


class ModelKeyDeleted(_RunFact, frozen=True):
    key_hash: Text
    usage_usd: Usd | None
    """What the provider reported the key spent, when it could say."""
    by: Text


class SandboxRemoved(_RunFact, frozen=True):
    name: Text
    by: Text


class RunClosed(_RunFact, frozen=True):
    """Nothing of the run is left running; its run record (if the agent started) is in the
    run's own stream, and an aborted run's rerun is scheduled beside this."""

    ended: Ended
    closed_at: datetime
    rerun: str | None = None


class SweepCompleted(Event, frozen=True):
    """The sweeper deleted keys and removed sandboxes that no live run owned."""

    swept_at: datetime
    keys_deleted: list[str]
    """Key hashes."""
    sandboxes_removed: list[str]
    """Container names."""

    @property
    def stream(self) -> str:
        return streams.SWEEPS


class EmergencyStopped(Event, frozen=True):
    """`argusic stop-all`: every run in progress cancelled, its key deleted, its sandbox
    removed (the v1.5 fix)."""

    by: Text
    stopped_at: datetime
    runs: list[str]

    @property
    def stream(self) -> str:
        return streams.SWEEPS


RunEvent = (
    RunScheduled
    | RunClaimed
    | ModelKeyRequested
    | ModelKeyCreated
    | ModelKeyCreationFailed
    | SourceFetched
    | SandboxCreated
    | AgentStarted
    | AgentExited
    | AgentTimedOut
    | RunCancelled
    | RunAborted
    | EvidenceStored
    | ModelKeyDeleted
    | SandboxRemoved
    | RunClosed
)
"""Every fact of one run's lifecycle (its stream, `attempt:<run id>`)."""
