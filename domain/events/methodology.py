"""Facts of the Argusic methodology: editions, runs, reviews and reruns."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from domain.events import streams
from domain.events.base import Count, Event, Text, Value
from domain.events.evidence import Evidence

SourceType = Literal[
    "repository",
    "huggingface_model",
    "huggingface_space",
    "package",
    "vendor_tool",
    "cloud_template",
    "container_image",
    "mcp_server",
]
"""Methodology section 6a: what a tested project can be."""

Pool = Literal["public", "secret"]
AttemptKind = Literal["standard", "retry", "stronger"]
RunStatus = Literal["finished", "timeout", "invalid", "cancelled"]
TestDepth = Literal["tier1_real", "tier2_mock", "tier3_none"]
Network = Literal["none", "bridge"]
"""A sandbox's network setting (section 7, point 1)."""


class EditionDrafted(Event, frozen=True):
    """A changelog edition of the methodology was written down (methodology section 20)."""

    version: str
    drafted: date
    summary: str
    decided: date | None = None
    """The day the edition's rules were decided, where the changelog gives it apart from the
    day they were written down (v0.2 to v0.4)."""

    @property
    def stream(self) -> str:
        return streams.edition(self.version)


class Project(Value, frozen=True):
    """A tested project, pinned (methodology sections 6 and 6a)."""

    id: Text
    source_type: SourceType
    pool: Pool
    repo: str | None = None
    commit: str | None = None
    heavy: bool = False
    needs_gpu: bool = False
    repo_size_mb: Annotated[float, msgspec.Meta(ge=0)] | None = None
    description: str | None = None
    """The repository's own description, stored as its author wrote it."""
    desktop: bool = False
    """A desktop application: from v1.1 it is started on a virtual display (section 7 point 6)."""


class SandboxLimits(Value, frozen=True):
    """A sandbox's limits (section 7, point 1: "su entorno exacto se publica")."""

    memory_bytes: int
    nano_cpus: int
    pids: int
    network: Network
    capabilities: list[str] = msgspec.field(default_factory=list)
    gpu: bool = False
    """Every GPU of the worker's host asked of the engine (section 6a: a run that needs a GPU,
    claimed only by a worker started with `--gpu`)."""


class Agent(Value, frozen=True):
    """A fixed, version-pinned agent: model and harness (methodology section 4)."""

    id: Text
    model: Text
    model_version: Text
    harness: Text
    harness_version: Text


class Report(Value, frozen=True):
    """What the agent reported at the end of a run (methodology sections 8 and 16)."""

    installed: bool
    started: bool
    errors_found: Count
    errors_fixed: Count
    test_depth: TestDepth
    verified_how: str | None = None
    final_state: str | None = None


class Verification(Value, frozen=True):
    """Section 16, from v1.4: a `tier1_real` claim as found when its run was recorded: whether
    `verified_how` names a decoding, whether that command, and the output the report quotes
    after it, are in the run's own recording (its security-redacted terminal output), and why
    it does not count, where it does not."""

    decoding: bool
    in_recording: bool
    reason: str | None = None


class AgentRuntime(Value, frozen=True):
    """What the runner starts for an agent: its image, its command, the variable its key is
    put in (ARCHITECTURE.md, the `agent` record's `runtime`)."""

    image: Text
    command: list[str]
    key_env: Text = "OPENROUTER_API_KEY"
    desktop_image: Text | None = None
    """The image a desktop project runs in: `image` with a virtual display (section 7 point 6)."""


class AgentRegistered(Event, frozen=True):
    """An agent: a fixed configuration under a neutral identity (methodology sections 4, 5)."""

    id: Text
    label: Text
    model: Text
    model_version: Text
    harness: Text
    harness_version: Text
    key: Literal["per_run", "shared_vendor"]
    sponsor: str | None = None
    runtime: AgentRuntime | None = None

    @property
    def stream(self) -> str:
        return streams.agent(self.id)


class CycleOpened(Event, frozen=True):
    """A test cycle: its roster and its pool of projects, each pinned at a commit (methodology
    sections 5 and 6)."""

    id: Text
    opens: date
    agents: list[str]
    projects: list[Project]
    stronger_agent: str | None = None

    @property
    def stream(self) -> str:
        return streams.cycle(self.id)


class RunRecorded(Event, frozen=True):
    """One run of an agent on a project, as its harness reported it; outcome and score are
    derived from it by the rubric, never recorded (methodology sections 7 and 8)."""

    run_id: Text
    cycle: str
    edition: str
    project: Project
    agent: Agent
    attempt: AttemptKind
    started_at: datetime
    finished_at: datetime
    status: RunStatus
    invalid_reason: str | None
    report: Report | None
    evidence: Evidence
    image_digest: str | None = None
    """v1.1: the digest of the machine image the run used."""
    budget_minutes: float | None = None
    """Section 7, point 3: the time budget assigned by the edition in force (or configured for
    the orchestrator that ran it); runs recorded before it was stored read it from the edition."""
    engine_version: str | None = None
    """Section 18, the environment published: the container engine's version."""
    network: Network | None = None
    """Section 7, point 1: the sandbox's network setting."""
    instructions_sha256: str | None = None
    """Section 7, point 2: the standard instructions the agent had, by SHA-256."""
    reproduces: str | None = None
    """Section 18: the run this one reproduced; it counts in no figure."""
    limits: SandboxLimits | None = None
    """Section 7, point 1: the sandbox's CPU, memory and process limits."""
    verification: Verification | None = None
    """Section 16, from v1.4: what was found of a `tier1_real` claim when the run was
    recorded; runs recorded before it was (and claims it does not concern) have none."""

    @property
    def stream(self) -> str:
        return streams.run(self.run_id)


class ProjectReviewCleared(Event, frozen=True):
    """A person reviewed a project put under review and cleared it (methodology section 15), in
    every cycle: recorded before reviews named a cycle and a finding (`ProjectReviewed`)."""

    project_id: Text
    reviewer: Text
    note: str

    @property
    def stream(self) -> str:
        return streams.review(self.project_id)


class ProjectReviewed(Event, frozen=True):
    """A person reviewed a project under review in one cycle (methodology section 15), and found
    the fault in the environment (its failed runs there are voided and run again) or in the
    project (its failures stand)."""

    project_id: Text
    cycle: str
    finding: Literal["environment", "project"]
    reviewer: Text
    note: str

    @property
    def stream(self) -> str:
        return streams.review(self.project_id)


class RunVoided(Event, frozen=True):
    """A recorded run is set aside after the fact, with the reason (an environment fault found
    by a review, a dispute upheld against us); it is never counted, and its evidence stays."""

    run_id: Text
    reason: str

    @property
    def stream(self) -> str:
        return streams.run(self.run_id)


class ReproductionRequested(Event, frozen=True):
    """Section 18: a recorded run is to be run again `runs` times as it ran, to reproduce it; the
    runs are `<run id>~p<k>`, numbered on from the run's earlier reproductions."""

    request: Text
    """`<run id>/reproduction/<n>`: the run's n-th request."""
    run_id: Text
    runs: list[Text]
    requested_by: Text
    note: str

    @property
    def stream(self) -> str:
        return streams.reproduction(self.run_id)


class Difference(Value, frozen=True):
    """One thing a reproduction ran with that differs from the original (section 18)."""

    field: str
    original: str | None
    now: str | None


class ReproducedRun(Value, frozen=True):
    run_id: Text
    outcome: str | None
    score: float | None


class ReproductionReported(Event, frozen=True):
    """Section 18: every run of a reproduction request ended: each one's outcome and score, whether
    the original's outcome held in all, and every difference in what ran."""

    request: Text
    run_id: Text
    runs: list[ReproducedRun]
    same_outcome: bool
    differences: list[Difference]

    @property
    def stream(self) -> str:
        return streams.reproduction(self.run_id)


RerunCause = Literal[
    "environment_review",
    "dispute",
    "withheld_recording",
    "missing_evidence",
    "aborted",
    "invalidated",
]
"""Why a run is asked for again: the decision that asked (ARCHITECTURE.md, wave 3)."""

BY_RULE: frozenset[RerunCause] = frozenset({"aborted", "missing_evidence"})
"""Requests the runner's own rules make for a run already invalid by its record (section 11:
cut short by our tooling; section 7 point 5: no full log or recording): they set nothing aside,
so they need no signed action."""


class RerunRequested(Event, frozen=True):
    """A recorded run is to be run again (section 17: its evidence withheld; section 15: an
    environment fault; section 19: a dispute; section 20: invalidated); the rerun replaces it."""

    run_id: Text
    reason: str
    why: RerunCause | None = None
    """Which kind of decision asked (none on requests recorded before issue 27)."""

    @property
    def stream(self) -> str:
        return streams.rerun(self.run_id)


class StrongerRequested(Event, frozen=True):
    """A person asked for the cycle's stronger agent on a project of its pool (methodology
    section 11: "se puede ejecutar un agent más potente si se solicita"; from v1.3 the only way
    it runs)."""

    project: Text
    cycle: Text
    operator: str

    @property
    def stream(self) -> str:
        return streams.stronger(self.cycle, self.project)
