"""`schedule --cycle C`: plan, from the ledger, every run a cycle needs (methodology section 7,
point 4, and section 11), under the edition in force, and every run of it asked for again
(sections 11, 15, 17, 19, 20); a second call adds nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard, RunLog, RunMoved
from domain.editions import version_key
from domain.errors import NotFound, Rejected
from domain.runner.config import OrchestratorConfig
from domain.runner.schedule import Reruns, plan_cycle, plan_reruns
from domain.state.methodology import Methodology
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection

ATTEMPTS = 5


class ScheduleReport(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    scheduled: list[str]
    reruns_waiting: dict[str, str] = {}
    """Runs asked for again that cannot be scheduled yet, with why."""


def schedule(
    ledger: Ledger, cycle_id: str, config: OrchestratorConfig, clock: Callable[[], datetime]
) -> ScheduleReport:
    """The cycle's runs not yet planned, appended at once."""
    reader = ProjectionReader(ledger, MethodologyProjection())
    state = reader.latest()
    cycle = state.cycles.get(cycle_id)
    if cycle is None:
        raise NotFound(f"no cycle {cycle_id!r}: ingest its cycle record first")
    if not state.editions:
        raise Rejected("section 20", "no edition is recorded: the rules in force are unknown")
    edition = max(state.editions, key=version_key)
    board = RunBoard(ledger)
    runs = plan_cycle(
        cycle,
        state.agents,
        edition,
        known=board.refresh().runs,
        budgets=config.budgets,
        grace_seconds=config.sandbox.grace_seconds,
        now=clock(),
    )
    if runs:
        ledger.append(ledger.next_versions(runs))
    reruns = schedule_reruns(reader, board, config, clock, cycle=cycle_id)
    return ScheduleReport(
        cycle=cycle_id,
        scheduled=[r.run_id for r in runs] + [r.run_id for r in reruns.scheduled],
        reruns_waiting=reruns.waiting,
    )


def schedule_reruns(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
    *,
    cycle: str | None = None,
) -> Reruns:
    """Every open rerun request (of `cycle`, or of every cycle) as one scheduled run, appended
    at once; a request another scheduler turned into a run meanwhile is planned again against
    it, so each gets exactly one (`RunMoved` is the other's append winning). `reader` and
    `board` (the ledger's methodology and runs) fold on from where they last read."""
    state = reader.latest()
    requested = [
        run_id
        for run_id in state.reruns
        if cycle is None or (run_id in state.runs and state.runs[run_id].event.cycle == cycle)
    ]
    recorded = {r: state.runs[r].event for r in requested if r in state.runs}
    for _ in range(ATTEMPTS):
        known = board.refresh().runs
        reruns = plan_reruns(
            requested,
            {r: known[r].scheduled for r in requested if r in known},
            recorded,
            state.agents,
            known=known,
            budgets=config.budgets,
            grace_seconds=config.sandbox.grace_seconds,
            now=clock(),
        )
        try:
            if reruns.scheduled:
                RunLog(board.ledger).schedule(reruns.scheduled)
        except RunMoved:
            continue
        return reruns
    raise RunMoved(f"reruns kept being scheduled by others during {ATTEMPTS} attempts")
