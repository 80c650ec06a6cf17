"""A run as the rules see it: valid or not, its outcome and score, its time budget
(methodology sections 7, 8 and 11)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath
from typing import Annotated

import msgspec

from domain.editions import Version, version_key
from domain.errors import Rejected
from domain.events import (
    Agent,
    AgentRegistered,
    AttemptKind,
    Evidence,
    InputRecord,
    Network,
    Project,
    Report,
    RerunRequested,
    RunRecorded,
    RunStatus,
    SandboxLimits,
    Text,
    Value,
    Verification,
)
from domain.scoring import Outcome, ScoreLines, outcome, score_run
from domain.verification import as_verified

Cycle = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]
ImageDigest = Annotated[str, msgspec.Meta(pattern=r"^sha256:[0-9a-f]{64}$")]
Sha256 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]


class EvidencePaths(Value, frozen=True):
    """Input: the run's evidence files, relative to the record's file."""

    log: str | None = None
    cast: str | None = None
    video: str | None = None
    """A desktop run's raw video of its virtual display (section 17: "un video en bruto")."""


def evidence_inside_its_folder(run_id: str, kind: str, name: str) -> PurePosixPath:
    """Methodology section 17 (the evidence is the run's own files): an evidence path a record
    names is relative to the record's file and stays inside its folder, so a record can never
    make us store and serve another file of the machine. An absolute path, or one with a `..`
    part, is refused; where it leads (a symbolic link) is the reader's to check."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise Rejected("section 17", outside_its_folder(run_id, kind, name))
    return path


def outside_its_folder(run_id: str, kind: str, name: str) -> str:
    return (
        f"run {run_id}: evidence.{kind} {name!r} leads outside the record's folder; an "
        "evidence path is relative to the record's file and stays inside its folder (no "
        "absolute path, no '..', no symbolic link leading out)"
    )


class AgentRef(Value, frozen=True):
    """Input: a run's agent, in full, or by its id alone once its agent record exists."""

    id: Text
    model: Text | None = None
    model_version: Text | None = None
    harness: Text | None = None
    harness_version: Text | None = None


AGENT_FIELDS = ("model", "model_version", "harness", "harness_version")


def resolve_agent(ref: AgentRef, registered: AgentRegistered | None) -> Agent:
    """Methodology section 4: a run records its agent's fixed configuration; given by id
    alone, it is the agent record's; given in full, it must be the agent record's, where one
    exists."""
    given = {f: getattr(ref, f) for f in AGENT_FIELDS if getattr(ref, f) is not None}
    if registered is None:
        missing = [f for f in AGENT_FIELDS if f not in given]
        if missing:
            raise Rejected(
                "section 4",
                f"agent {ref.id} has no agent record, so agent.{', agent.'.join(missing)} "
                "must be given",
            )
        return Agent(id=ref.id, **given)
    for field, value in given.items():
        if value != getattr(registered, field):
            raise Rejected(
                "section 4",
                f"agent.{field} is {value!r}, but agent {ref.id} is recorded with "
                f"{getattr(registered, field)!r}",
            )
    return Agent(id=ref.id, **{f: getattr(registered, f) for f in AGENT_FIELDS})


class RunRecord(InputRecord, frozen=True, tag="run"):
    """Input: one run as its harness reports it (ARCHITECTURE.md, "Input records")."""

    run_id: Text
    cycle: Cycle
    edition: Version
    project: Project
    agent: AgentRef
    attempt: AttemptKind
    started_at: Annotated[datetime, msgspec.Meta(tz=True)]
    finished_at: Annotated[datetime, msgspec.Meta(tz=True)]
    status: RunStatus
    invalid_reason: str | None = None
    report: Report | None = None
    evidence: EvidencePaths = msgspec.field(default_factory=EvidencePaths)
    model_key: str | None = None
    """The run's own model key, for redaction only: never recorded anywhere (section 17)."""
    image_digest: ImageDigest | None = None
    engine_version: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    network: Network | None = None
    instructions_sha256: Sha256 | None = None
    reproduces: Text | None = None
    limits: SandboxLimits | None = None


SAME_CONDITIONS: tuple[tuple[str, Callable[[RunRecorded], str | None]], ...] = (
    ("agent.model", lambda r: r.agent.model),
    ("agent.model_version", lambda r: r.agent.model_version),
    ("agent.harness", lambda r: r.agent.harness),
    ("agent.harness_version", lambda r: r.agent.harness_version),
    ("project.commit", lambda r: r.project.commit),
)


def identical_conditions(run: RunRecorded, first_of_set: RunRecorded | None) -> None:
    """Methodology sections 4 and 14: within one set every run has the same agent
    configuration (model, versions, harness) and the same project commit."""
    if first_of_set is None:
        return
    for field, value in SAME_CONDITIONS:
        if value(run) != value(first_of_set):
            raise Rejected(
                "sections 4 and 14",
                f"run {run.run_id}: {field} is {value(run)!r}, but its set "
                f"({run.agent.id} on {run.project.id} in {run.cycle}) ran with "
                f"{value(first_of_set)!r}",
            )


def admit_run(
    record: RunRecord,
    evidence: Evidence,
    editions: set[str],
    recorded: RunRecorded | None,
    *,
    agent: Agent | None = None,
    first_of_set: RunRecorded | None = None,
    budget_minutes: float | None = None,
    verification: Verification | None = None,
) -> list[RunRecorded]:
    """Methodology sections 4, 7, 8, 16 and 20: check a run record against the rules of input
    and return what to record: the run, once, with its time budget and what was found of its
    verification; the same record again records nothing. `agent` is the resolved configuration
    (by default the record's, in full); `budget_minutes` is the orchestrator's when it ran the
    run, else the edition's."""
    if record.edition not in editions:
        raise Rejected("section 20", f"edition {record.edition} is not in the changelog")
    if record.finished_at < record.started_at:
        raise Rejected("section 7", "finished_at is before started_at")
    report = record.report
    if report is not None and report.errors_fixed > report.errors_found:
        raise Rejected("section 8", "a run cannot fix more errors than it found")
    if record.status == "finished" and report is None:
        raise Rejected("section 8", "a finished run needs its report")
    if record.status == "invalid" and not record.invalid_reason:
        raise Rejected("section 11", "an invalid run keeps the reason it was cut short")
    run = RunRecorded(
        run_id=record.run_id,
        cycle=record.cycle,
        edition=record.edition,
        project=record.project,
        agent=agent or resolve_agent(record.agent, None),
        attempt=record.attempt,
        started_at=record.started_at.astimezone(UTC),
        finished_at=record.finished_at.astimezone(UTC),
        status=record.status,
        invalid_reason=record.invalid_reason,
        report=report,
        evidence=evidence,
        image_digest=record.image_digest,
        engine_version=record.engine_version,
        network=record.network,
        instructions_sha256=record.instructions_sha256,
        reproduces=record.reproduces,
        limits=record.limits,
        budget_minutes=budget_minutes
        if budget_minutes is not None
        else time_budget_minutes(record.edition, record.project),
        verification=verification,
    )
    if recorded is not None:
        if recorded != run:
            raise Rejected("section 13", f"run {record.run_id} is already recorded differently")
        return []
    identical_conditions(run, first_of_set)
    return [run]


def invalid_reason(run: RunRecorded, set_aside: str | None = None) -> str | None:
    """Methodology sections 7, 8, 11, 15, 17 and 19: a run cut short by Argusic's own tools,
    cancelled, without a full log and a full terminal recording, or set aside after it was
    recorded (voided, or repeated), is not valid: never scored, never counted."""
    if run.status == "invalid":
        return run.invalid_reason or "cut short by Argusic's tools"
    if run.status == "cancelled":
        return run.invalid_reason or "cancelled"
    if set_aside is not None:
        return set_aside
    if run.evidence.log is None or run.evidence.log.bytes == 0:
        return "no full log"
    if run.evidence.cast is None or run.evidence.cast.bytes == 0:
        return "no full terminal recording"
    return None


def missing_evidence(run: RunRecorded) -> RerunRequested | None:
    """Section 7, point 5: a run that ended without its full log or terminal recording is
    invalid and run again (a cancelled run or one our tooling cut short is not: the first was
    stopped on purpose, the second's rerun is asked for as `aborted`)."""
    if run.status in ("invalid", "cancelled"):
        return None
    reason = invalid_reason(run)
    if reason is None:
        return None
    return RerunRequested(run_id=run.run_id, reason=reason, why="missing_evidence")


def repeated(reason: str) -> str:
    """Why a run is invalid while its rerun is pending (section 17: "su ejecución se repite")."""
    return f"repeated: {reason}"


def budget(run: RunRecorded) -> float:
    """The run's time budget in minutes: as stored, or (recorded before it was) its edition's."""
    if run.budget_minutes is not None:
        return run.budget_minutes
    return time_budget_minutes(run.edition, run.project)


def scored_status(run: RunRecorded) -> RunStatus:
    """Methodology section 7, point 3, and section 8: a run that took longer than its budget
    ran out of time, whatever its status says."""
    overran = run.finished_at - run.started_at > timedelta(minutes=budget(run))
    return "timeout" if run.status == "finished" and overran else run.status


def _report(run: RunRecorded) -> Report | None:
    return as_verified(run)


def run_outcome(run: RunRecorded, set_aside: str | None = None) -> Outcome | None:
    """The outcome of a valid run under its own edition; None for an invalid one."""
    return None if invalid_reason(run, set_aside) else outcome(scored_status(run), _report(run))


def run_score(run: RunRecorded, set_aside: str | None = None) -> ScoreLines | None:
    """The rubric's lines for a valid run under its own edition; None for an invalid one."""
    if invalid_reason(run, set_aside):
        return None
    return score_run(scored_status(run), _report(run))


def time_budget_minutes(edition: str, project: Project) -> int:
    """Methodology section 7, point 3: standard 90 minutes (45 before v1.3); heavy 120 from
    v1.2, for a project the Owner marks heavy or a repository over 500 MB; GPU 120."""
    in_force = version_key(edition)
    heavy = project.heavy or (project.repo_size_mb or 0) > 500
    if project.needs_gpu or (heavy and in_force >= (1, 2)):
        return 120
    return 90 if in_force >= (1, 3) else 45
