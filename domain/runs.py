"""A run as the rules see it: valid or not, its outcome and score, its time budget
(methodology sections 7, 8 and 11)."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Annotated

import msgspec

from domain.editions import Version, version_key
from domain.errors import Rejected
from domain.events import (
    Agent,
    AttemptKind,
    Evidence,
    InputRecord,
    Project,
    Report,
    RunRecorded,
    RunStatus,
    Text,
    Value,
)
from domain.scoring import Outcome, ScoreLines, outcome, score_run
from domain.verification import as_verified

Cycle = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]


class EvidencePaths(Value, frozen=True):
    """Input: the run's evidence files, relative to the record's file."""

    log: str | None = None
    cast: str | None = None


class RunRecord(InputRecord, frozen=True, tag="run"):
    """Input: one run as its harness reports it (ARCHITECTURE.md, "Input records")."""

    run_id: Text
    cycle: Cycle
    edition: Version
    project: Project
    agent: Agent
    attempt: AttemptKind
    started_at: Annotated[datetime, msgspec.Meta(tz=True)]
    finished_at: Annotated[datetime, msgspec.Meta(tz=True)]
    status: RunStatus
    invalid_reason: str | None = None
    report: Report | None = None
    evidence: EvidencePaths = msgspec.field(default_factory=EvidencePaths)
    model_key: str | None = None
    """The run's own model key, for redaction only: never recorded anywhere (section 17)."""


def admit_run(
    record: RunRecord, evidence: Evidence, editions: set[str], recorded: RunRecorded | None
) -> list[RunRecorded]:
    """Methodology sections 7, 8 and 20: check a run record against the rules of input and
    return what to record: the run, once; the same record again records nothing."""
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
        agent=record.agent,
        attempt=record.attempt,
        started_at=record.started_at.astimezone(UTC),
        finished_at=record.finished_at.astimezone(UTC),
        status=record.status,
        invalid_reason=record.invalid_reason,
        report=report,
        evidence=evidence,
    )
    if recorded is None:
        return [run]
    if recorded != run:
        raise Rejected("section 13", f"run {record.run_id} is already recorded differently")
    return []


def invalid_reason(run: RunRecorded, rerun: str | None = None) -> str | None:
    """Methodology sections 8, 11 and 17: a run cut short by Argusic's own tools, without a
    full log and a full terminal recording, or whose evidence is withheld (it is repeated), is
    not valid: never scored, never counted."""
    if run.status == "invalid":
        return run.invalid_reason or "cut short by Argusic's tools"
    if rerun is not None:
        return f"repeated: {rerun}"
    if run.evidence.log is None or run.evidence.log.bytes == 0:
        return "no full log"
    if run.evidence.cast is None or run.evidence.cast.bytes == 0:
        return "no full terminal recording"
    return None


def _report(run: RunRecorded) -> Report | None:
    return None if run.report is None else as_verified(run.report, run.edition)


def run_outcome(run: RunRecorded, rerun: str | None = None) -> Outcome | None:
    """The outcome of a valid run under its own edition; None for an invalid one."""
    return None if invalid_reason(run, rerun) else outcome(run.status, _report(run))


def run_score(run: RunRecorded, rerun: str | None = None) -> ScoreLines | None:
    """The rubric's lines for a valid run under its own edition; None for an invalid one."""
    return None if invalid_reason(run, rerun) else score_run(run.status, _report(run))


def total(run: RunRecorded, rerun: str | None = None) -> Fraction | None:
    lines = run_score(run, rerun)
    return None if lines is None else lines.total


def time_budget_minutes(run: RunRecorded) -> int:
    """Methodology section 7, point 3: standard 90 minutes (45 before v1.3); heavy 120 from
    v1.2, for a project the Owner marks heavy or a repository over 500 MB; GPU 120."""
    edition = version_key(run.edition)
    project = run.project
    heavy = project.heavy or (project.repo_size_mb or 0) > 500
    if project.needs_gpu or (heavy and edition >= (1, 2)):
        return 120
    return 90 if edition >= (1, 3) else 45
