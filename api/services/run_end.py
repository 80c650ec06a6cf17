"""Ending runs and leaving nothing behind (methodology section 7, "La clave del modelo"; the
v1.5 fix): stop a run now (kill its sandbox and delete its key in parallel), abort it, cancel
it, stop everything, recover what a dead orchestrator left, and close a run once its key and
sandbox are gone: evidence stored, run recorded, an aborted run's rerun scheduled."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import msgspec

from api.services.evidence import received
from api.services.run_log import RunBoard, RunMoved
from api.services.runner_ports import Runner
from domain.errors import ArgusicError, InvalidInput, Rejected
from domain.events import (
    EmergencyStopped,
    EvidenceStored,
    Fingerprint,
    ModelKeyDeleted,
    RerunRequested,
    RunAborted,
    RunCancelled,
    RunClosed,
    SandboxRemoved,
)
from domain.runner.lifecycle import RunState, apply, leftovers
from domain.runner.naming import rerun_delay, rerun_id
from domain.runner.record import run_record
from domain.runs import EvidencePaths, RunRecord
from ledger.ledger import NewEvent

IN_PROGRESS = ("claimed", "key_requested", "key_ready", "source_ready", "sandbox_ready", "running")
ATTEMPTS = 5


def _quietly(step: Callable[[], object]) -> None:
    """A cleanup step that may fail now and be done later (by `finish` or the sweeper)."""
    with contextlib.suppress(ArgusicError):
        step()


def stop_now(runner: Runner, state: RunState) -> None:
    """Kill the sandbox and delete the key at once, in parallel: the key stops spending even
    when the engine hangs, and every process of the sandbox dies with it."""
    steps: list[Callable[[], object]] = []
    if state.sandbox is not None and not state.sandbox_removed:
        sandbox = state.sandbox
        steps.append(lambda: runner.sandboxes.kill(sandbox))
    if state.key_hash is not None and not state.key_deleted:
        key_hash = state.key_hash
        steps.append(lambda: runner.keys.delete(key_hash))
    if steps:
        with ThreadPoolExecutor(len(steps)) as pool:
            list(pool.map(_quietly, steps))


def abort(runner: Runner, state: RunState, reason: str) -> RunState:
    """Section 11: Argusic's own tooling failed; the run is invalid, never counted, and rerun."""
    for _ in range(ATTEMPTS):
        if state.phase not in IN_PROGRESS:
            break
        try:
            state = runner.log.append(
                state, RunAborted(run_id=state.run_id, reason=reason[:500], ended_at=runner.clock())
            )
        except RunMoved:
            state = runner.log.load(state.run_id)
    stop_now(runner, state)
    return state


def cancel(runner: Runner, run_id: str, by: str, reason: str) -> RunState:
    """Cancel a run (scheduled or in progress): its key is deleted and its sandbox removed,
    and that is recorded (before 2026-10-08 a cancel did not delete the key)."""
    state = runner.log.load(run_id)
    for _ in range(ATTEMPTS):
        if state.phase not in ("scheduled", *IN_PROGRESS):
            raise InvalidInput(f"run {run_id} is {state.phase}: there is nothing to cancel")
        try:
            ending = RunCancelled(run_id=run_id, by=by, reason=reason, ended_at=runner.clock())
            state = runner.log.append(state, ending)
            break
        except RunMoved:
            state = runner.log.load(run_id)
    stop_now(runner, state)
    return finish(runner, state, None, None, by="cancel")


def stop_all(runner: Runner, by: str) -> list[str]:
    """Emergency stop: cancel every run in progress, deleting keys and removing sandboxes,
    and record the stop."""
    board = RunBoard(runner.log.ledger).refresh()
    stopped = [s.run_id for s in board.runs.values() if s.phase in IN_PROGRESS]
    for run_id in stopped:
        with contextlib.suppress(InvalidInput):
            cancel(runner, run_id, by, "emergency stop")
    stop = EmergencyStopped(by=by, stopped_at=runner.clock(), runs=stopped)
    runner.log.ledger.append([NewEvent(stop, len(runner.log.ledger.stream(stop.stream)) + 1)])
    return stopped


def recover(runner: Runner, worker: str) -> list[str]:
    """An orchestrator restart: every run this worker had in flight is aborted (its recording
    was cut, at its last whole event), cleaned up and rerun; runs it left ending are closed,
    with the report their agent wrote (kept beside the session files when it was read)."""
    board = RunBoard(runner.log.ledger).refresh()
    mine = [s for s in board.runs.values() if s.worker == worker and s.phase != "closed"]
    for found in mine:
        state = found
        if state.phase in IN_PROGRESS:
            state = abort(runner, state, _restarted(runner, state.run_id))
        finish(runner, state, runner.kept_report(state.run_id), None)
    return [s.run_id for s in mine]


def _restarted(runner: Runner, run_id: str) -> str:
    """Why a run in flight was aborted at a restart, with what of its recording's last write,
    cut half way by the kill, was dropped."""
    reason = "the orchestrator restarted while the run was in flight"
    cast, _ = runner.evidence_paths(run_id)
    if cast.exists() and (cut := runner.cut_torn_write(cast)):
        return f"{reason} (the recording's last write, cut half way, dropped: {cut} bytes)"
    return reason


def finish(
    runner: Runner,
    state: RunState,
    report: bytes | None,
    model_key: str | None,
    by: str = "runner",
) -> RunState:
    """Close an ended run: delete its key (with the usage the provider reports), remove its
    sandbox with its volumes, store its evidence, record it, schedule its rerun if aborted.
    What cannot be done now is left for the sweeper; every step is recorded."""
    for _ in range(ATTEMPTS):
        if state.phase != "ending":
            return state
        try:
            return _close(runner, state, report, model_key, by)
        except RunMoved:
            state = runner.log.load(state.run_id)
        except (OSError, Rejected):
            # Another closer (a cancel, an emergency stop, this run's worker) closed the run and
            # dropped its session files before or while this one read them (the intake refuses a
            # missing file, a read fails on one just removed): the run is closed. If it is not,
            # the failure is this closer's to report.
            state = runner.log.load(state.run_id)
            if state.phase == "ending":
                raise
    return state


def _close(
    runner: Runner, state: RunState, report: bytes | None, model_key: str | None, by: str
) -> RunState:
    events: list[object] = []
    if state.key_hash is not None and not state.key_deleted:
        with contextlib.suppress(ArgusicError):
            info = runner.keys.get(state.key_hash)
            runner.keys.delete(state.key_hash)
            usage = None if info is None else info.usage
            events.append(
                ModelKeyDeleted(
                    run_id=state.run_id, key_hash=state.key_hash, usage_usd=usage, by=by
                )
            )
    if state.sandbox is not None and not state.sandbox_removed:
        with contextlib.suppress(ArgusicError):
            runner.sandboxes.remove(state.sandbox)
            events.append(SandboxRemoved(run_id=state.run_id, name=state.sandbox, by=by))
    cast, log = runner.evidence_paths(state.run_id)
    if state.started_at is not None and state.evidence is None and cast.exists() and log.exists():
        events.append(
            EvidenceStored(
                run_id=state.run_id,
                log=_stored(runner, log, "log", model_key),
                cast=_stored(runner, cast, "cast", model_key),
                complete=state.ended != "aborted",
            )
        )
    pending = state
    for event in events:
        pending = _applied(pending, event)
    if leftovers(pending):
        return runner.log.append(state, *events) if events else state  # type: ignore[arg-type]
    closing, beside = _closing(
        runner, pending, report=report, model_key=model_key, cast=cast, log=log
    )
    closed = runner.log.append(state, *events, closing, beside=beside)  # type: ignore[arg-type]
    runner.discard_session(state.run_id)
    return closed


def cut_short(state: RunState) -> RerunRequested:
    """Section 11: an attempt Argusic's tooling cut short is repeated (its rerun is scheduled
    beside it)."""
    reason = getattr(state.ending, "reason", None) or "cut short by Argusic's tools"
    return RerunRequested(run_id=state.run_id, reason=reason, why="aborted")


def _stored(runner: Runner, path: Path, kind: str, model_key: str | None) -> Fingerprint:
    """A file of the session as the record_run intake will keep it: its fingerprint, taken
    after security redaction (section 17; issue 26: no hash of bytes that held a credential
    is recorded)."""
    return received(runner.store, path, kind, model_key).kept


def _recorded(
    runner: Runner, record: RunRecord, folder: Path, budget_minutes: float
) -> Sequence[NewEvent]:
    """The run's record and its evidence's events. A report the rules refuse (section 8: more
    errors fixed than found) leaves the attempt without a result its harness could read: the
    run is recorded invalid with the rule it broke (section 11), never left ending."""
    try:
        return runner.record_run(record, folder, budget_minutes)
    except Rejected as e:
        if record.report is None:
            raise  # not the report's doing (a session file gone): the caller's to judge
        reason = f"the agent's report breaks {e.rule}: {e.reason}"
        refused = msgspec.structs.replace(
            record, status="invalid", report=None, invalid_reason=reason
        )
        return runner.record_run(refused, folder, budget_minutes)  # refused again: not the report


def _applied(state: RunState, event: object) -> RunState:
    return apply(state, event)  # type: ignore[arg-type]


def _closing(
    runner: Runner,
    state: RunState,
    *,
    report: bytes | None,
    model_key: str | None,
    cast: Path,
    log: Path,
) -> tuple[RunClosed, list[NewEvent]]:
    """The closing event, and beside it the run record (with its evidence's events) and, for
    an aborted run, its rerun."""
    assert state.ended is not None
    beside: list[NewEvent] = []
    rerun = None
    if state.ended == "aborted":
        rerun = rerun_id(state.run_id)
        now = runner.clock()
        wait = timedelta(seconds=rerun_delay(state.run_id, runner.rerun_delay_seconds))
        again = msgspec.structs.replace(
            state.scheduled,
            run_id=rerun,
            scheduled_at=now,
            replaces=state.run_id,
            not_before=now + wait,
        )
        beside.append(NewEvent(again, 1))
    # a session whose files are gone is still recorded: without its evidence, to be repeated
    kept = state.evidence is not None
    video = runner.video_path(state.run_id)
    filmed = video.name if video.is_file() and video.stat().st_size else None
    names = EvidencePaths(log=log.name, cast=cast.name, video=filmed) if kept else EvidencePaths()
    record = run_record(state, report, names, model_key)
    if record is not None:
        beside += _recorded(runner, record, log.parent, state.scheduled.budget_seconds / 60)
    if rerun is not None:
        beside += runner.log.ledger.next_versions([cut_short(state)])
    closed = RunClosed(
        run_id=state.run_id, ended=state.ended, closed_at=runner.clock(), rerun=rerun
    )
    return closed, beside
