"""The run record a closed run leaves (ARCHITECTURE.md, "Input records"), derived from its
lifecycle events and the report the agent wrote in its sandbox."""

from __future__ import annotations

import msgspec

from domain.events import Report, RunStatus
from domain.runner.lifecycle import RunState
from domain.runs import AgentRef, EvidencePaths, RunRecord

_report = msgspec.json.Decoder(Report)
STATUS: dict[str, RunStatus] = {
    "exited": "finished",
    "timed_out": "timeout",
    "aborted": "invalid",
    "cancelled": "cancelled",
}


def read_report(data: bytes | None) -> tuple[Report | None, str | None]:
    """The agent's report, or why there is none (section 11: a harness that could not read
    the agent's report cut the attempt short)."""
    if data is None:
        return None, "the agent wrote no report at /argusic/report.json"
    try:
        return _report.decode(data), None
    except msgspec.DecodeError as e:
        return None, f"the agent's report could not be read: {e}"


def run_record(
    state: RunState, report_bytes: bytes | None, evidence: EvidencePaths, model_key: str | None
) -> RunRecord | None:
    """The record of a run whose agent started (None for one that never did). Methodology
    sections 7, 8 and 11: an exit gives `finished` with the report, or `invalid` when the
    report cannot be read; the budget running out gives `timeout`; Argusic's own failure gives
    `invalid`, with the reason; a cancelled run is recorded `cancelled` (never counted)."""
    ending = state.ending
    if state.started_at is None or ending is None or state.ended not in STATUS:
        return None
    status = STATUS[state.ended]
    report, problem = read_report(report_bytes) if status == "finished" else (None, None)
    reason = getattr(ending, "reason", None)
    if status == "finished" and report is None:
        status, reason = "invalid", problem
    run, sandbox = state.scheduled, state.environment
    return RunRecord(
        run_id=run.run_id,
        cycle=run.cycle,
        edition=run.edition,
        project=run.project,
        agent=AgentRef(**msgspec.structs.asdict(run.agent)),
        attempt=run.attempt,
        started_at=state.started_at,
        finished_at=ending.ended_at,
        status=status,
        invalid_reason=reason if status == "invalid" else None,
        report=report,
        evidence=evidence,
        model_key=model_key,
        image_digest=state.image_digest,
        engine_version=None if sandbox is None else sandbox.engine_version,
        network=None if sandbox is None else sandbox.limits.network,
        instructions_sha256=None if sandbox is None else sandbox.instructions_sha256,
        reproduces=run.reproduces,
        limits=None if sandbox is None else sandbox.limits,
    )
