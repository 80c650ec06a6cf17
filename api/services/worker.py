"""`argusic worker`: claim scheduled runs through the ledger's optimistic concurrency (the
claim goes at the next version of the run's stream, so two workers on one database never run
the same attempt) and carry up to N at once; a run that needs a GPU only with `gpu` (section
6a). Safe to kill at any moment: on start it aborts and reruns what it had in flight, and
sweeps; then it sweeps again every `sweep_seconds` (section 7, "un barrido programado")."""

from __future__ import annotations

import threading
import time
from collections.abc import Container
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

import structlog

from api.services.reader import ProjectionReader
from api.services.run_attempt import execute
from api.services.run_end import recover
from api.services.run_log import RunBoard, RunMoved
from api.services.runner_ports import Runner
from api.services.schedule import schedule_asked
from api.services.sweep import sweep
from domain.events import RunClaimed
from domain.runner.budgets import needs_gpu, run_deadline
from domain.runner.lifecycle import RunState, claimable
from projections.methodology import MethodologyProjection

log = structlog.get_logger(__name__)


def claim(runner: Runner, state: RunState, worker: str) -> RunState | None:
    """Take a scheduled run; None when another worker took it first."""
    now = runner.clock()
    run = state.scheduled
    claimed = RunClaimed(
        run_id=run.run_id,
        worker=worker,
        claim=state.claim + 1,
        claimed_at=now,
        deadline=run_deadline(now, run.budget_seconds, run.grace_seconds),
    )
    try:
        return runner.log.append(state, claimed)
    except RunMoved:
        return None


@dataclass
class WorkerReport:
    recovered: list[str] = field(default_factory=list)
    executed: dict[str, str] = field(default_factory=dict)
    """Run id -> how it ended once closed, else its phase (`scheduled`: no key; `ending`: not
    yet recorded)."""


def _outcome(run_id: str, future: Future[RunState]) -> str:
    """How a closed run ended; a run whose closing failed, or left its key or sandbox behind,
    stays ending, for the next sweep or restart to close, and the worker goes on."""
    try:
        state = future.result()
    except Exception as e:  # the worker outlives any one run
        # no traceback: its frames hold the run's key
        log.error("run_not_closed", run_id=run_id, error=f"{type(e).__name__}: {e}")
        return "ending"
    return state.ended if state.phase == "closed" and state.ended else state.phase


def _ready(board: RunBoard, running: Container[str], now: datetime, *, gpu: bool) -> list[RunState]:
    """The runs this worker may claim now, oldest first; on a GPU worker, GPU runs first."""
    return sorted(
        (s for s in board.runs.values() if claimable(s, now, gpu=gpu) and s.run_id not in running),
        key=lambda s: (not needs_gpu(s.scheduled), s.scheduled.scheduled_at, s.run_id),
    )


def sweep_on(runner: Runner) -> None:
    """One scheduled sweep of a running worker; a failure is logged and the worker goes on
    (the next sweep tries again)."""
    try:
        sweep(runner)
    except Exception as e:  # the worker outlives any one sweep
        log.error("sweep_failed", error=f"{type(e).__name__}: {e}")


def run_worker(
    runner: Runner,
    worker: str,
    concurrency: int,
    *,
    once: bool = False,
    gpu: bool = False,
    stop: threading.Event | None = None,
) -> WorkerReport:
    """Recover, sweep, then claim and execute runs until stopped (with `once`: until nothing
    claimable is left and every claimed run is done), scheduling every run asked for again or
    to reproduce, and reporting every reproduction done, whenever the ledger grew; sweep again
    every `sweep_seconds`. Runs that need a GPU are claimed only with `gpu`, and first."""
    stop = stop or threading.Event()
    report = WorkerReport(recovered=recover(runner, worker))
    sweep(runner)
    period = runner.config.sandbox.sweep_seconds
    next_sweep = time.monotonic() + period
    board = RunBoard(runner.log.ledger)
    running: dict[str, Future[RunState]] = {}
    planned_at, reader = -1, ProjectionReader(runner.log.ledger, MethodologyProjection())
    with ThreadPoolExecutor(concurrency, thread_name_prefix="run") as pool:
        while not stop.is_set():
            for run_id, future in list(running.items()):
                if future.done():
                    report.executed[run_id] = _outcome(run_id, future)
                    del running[run_id]
            if (size := runner.log.ledger.size()) != planned_at:  # something new may ask
                schedule_asked(reader, board, runner.config, runner.clock)
                planned_at = size
            if time.monotonic() >= next_sweep:
                sweep_on(runner)
                next_sweep = time.monotonic() + period
            ready = _ready(board.refresh(), running, runner.clock(), gpu=gpu)
            for state in ready[: concurrency - len(running)]:
                claimed = claim(runner, state, worker)
                if claimed is not None:
                    running[state.run_id] = pool.submit(execute, runner, claimed)
            if once and not running and not ready:
                break
            stop.wait(runner.poll_seconds)
    return report
