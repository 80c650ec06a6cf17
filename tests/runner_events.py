"""Runner events for tests: one of each kind, consistent with each other."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.events import (
    Agent,
    AgentExited,
    AgentRuntime,
    AgentStarted,
    AgentTimedOut,
    EvidenceStored,
    Fingerprint,
    KeyMode,
    ModelKeyCreated,
    ModelKeyCreationFailed,
    ModelKeyDeleted,
    ModelKeyRequested,
    Project,
    RunAborted,
    RunCancelled,
    RunClaimed,
    RunClosed,
    RunScheduled,
    SandboxCreated,
    SandboxLimits,
    SandboxRemoved,
    SourceFetched,
)

T0 = datetime(2026, 10, 9, 10, 0, tzinfo=UTC)
RUN = "2026-10.agent-a.octo-hello.1"
BUDGET = 5400.0
GRACE = 300.0
DEADLINE = T0 + timedelta(seconds=BUDGET + GRACE)
FP = Fingerprint(sha256="a" * 64, bytes=10)


def scheduled(key: KeyMode = "per_run", run_id: str = RUN) -> RunScheduled:
    return RunScheduled(
        run_id=run_id,
        cycle="2026-10",
        edition="1.5",
        project=Project(id="octo/hello", source_type="repository", pool="public", commit="c" * 40),
        agent=Agent(id="agent-a", model="m", model_version="1", harness="h", harness_version="1"),
        runtime=AgentRuntime(image="argusic/baseline:1", command=["/agent/run"]),
        key=key,
        attempt="standard",
        tier="standard",
        budget_seconds=BUDGET,
        grace_seconds=GRACE,
        scheduled_at=T0,
    )


def claimed(claim: int = 1, at: datetime = T0) -> RunClaimed:
    return RunClaimed(run_id=RUN, worker="w1", claim=claim, claimed_at=at, deadline=DEADLINE)


def key_requested(claim: int = 1) -> ModelKeyRequested:
    return ModelKeyRequested(
        run_id=RUN, claim=claim, key_name=f"k{claim}", limit_usd=3, expires_at=DEADLINE
    )


def key_created(claim: int = 1) -> ModelKeyCreated:
    return ModelKeyCreated(
        run_id=RUN, key_hash="h1", key_name=f"k{claim}", limit_usd=3, expires_at=DEADLINE
    )


def key_failed() -> ModelKeyCreationFailed:
    return ModelKeyCreationFailed(run_id=RUN, reason="500", retry_after=T0 + timedelta(minutes=5))


def source() -> SourceFetched:
    return SourceFetched(
        run_id=RUN, commit="c" * 40, tree="t" * 40, archive_sha256="b" * 64, method="git"
    )


def sandbox() -> SandboxCreated:
    return SandboxCreated(
        run_id=RUN,
        name="argusic-run-x-c1-n",
        container_id="id",
        image="argusic/baseline:1",
        image_digest="sha256:" + "d" * 64,
        limits=SandboxLimits(memory_bytes=1 << 30, nano_cpus=10**9, pids=256, network="none"),
        budget_seconds=BUDGET,
        deadline=DEADLINE,
        environment={"TZ": "UTC", "LANG": "C.UTF-8"},
        key_env="OPENROUTER_API_KEY",
    )


def started() -> AgentStarted:
    return AgentStarted(run_id=RUN, started_at=T0, timeout_at=T0 + timedelta(seconds=BUDGET))


def exited() -> AgentExited:
    return AgentExited(run_id=RUN, exit_code=0, ended_at=T0)


def timed_out() -> AgentTimedOut:
    return AgentTimedOut(run_id=RUN, ended_at=T0)


def cancelled() -> RunCancelled:
    return RunCancelled(run_id=RUN, by="operator", reason="asked", ended_at=T0)


def aborted() -> RunAborted:
    return RunAborted(run_id=RUN, reason="docker engine unreachable", ended_at=T0)


def evidence() -> EvidenceStored:
    return EvidenceStored(run_id=RUN, log=FP, cast=FP, complete=True)


def key_deleted() -> ModelKeyDeleted:
    return ModelKeyDeleted(run_id=RUN, key_hash="h1", usage_usd=0.1, by="runner")


def sandbox_removed() -> SandboxRemoved:
    return SandboxRemoved(run_id=RUN, name="argusic-run-x-c1-n", by="runner")


def closed(ended: str = "exited", rerun: str | None = None) -> RunClosed:
    return RunClosed(run_id=RUN, ended=ended, closed_at=T0, rerun=rerun)  # type: ignore[arg-type]
