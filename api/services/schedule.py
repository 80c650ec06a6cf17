"""`schedule --cycle C`: plan, from the ledger, every run a cycle needs (methodology section 7,
point 4, and section 11), under the edition in force, every run of it asked for again (sections
11, 15, 17, 19, 20) and the next steps of its projects' verdict chains (section 11); a second
call adds nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial

import msgspec

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard, RunLog, RunMoved
from domain.editions import version_key
from domain.errors import NotFound, Rejected
from domain.runner.config import OrchestratorConfig
from domain.runner.lifecycle import RunState
from domain.runner.schedule import Plan, Planned, Tried, plan_chain, plan_cycle, plan_reruns
from domain.state.methodology import Methodology
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection

ATTEMPTS = 5


class ScheduleReport(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    scheduled: list[str]
    reruns_waiting: dict[str, str] = {}
    """Runs asked for again that cannot be scheduled yet, with why."""
    chain_waiting: dict[str, str] = {}
    """Attempts of a verdict chain that cannot be scheduled yet, with why."""


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
    chain = schedule_chain(reader, board, config, clock, cycle=cycle_id)
    return ScheduleReport(
        cycle=cycle_id,
        scheduled=[r.run_id for r in [*runs, *reruns.scheduled, *chain.scheduled]],
        reruns_waiting=reruns.waiting,
        chain_waiting=chain.waiting,
    )


def schedule_reruns(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
    *,
    cycle: str | None = None,
) -> Planned:
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


def schedule_chain(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
    *,
    cycle: str | None = None,
) -> Planned:
    """The next attempts of every verdict chain (section 11) of `cycle`, or of every cycle, each
    scheduled once, appended at once; as `schedule_reruns`, an append another scheduler won is
    planned again against it."""
    state = reader.latest()
    cycles = [c for c in state.cycles.values() if cycle is None or c.id == cycle]
    for _ in range(ATTEMPTS):
        runs = board.refresh().runs
        plan = Plan(config.budgets, config.sandbox.grace_seconds, clock())
        planned = [
            plan_chain(
                record,
                state.agents,
                partial(tried, state, runs),
                state.stronger_requested.get(record.id, {}),
                plan,
            )
            for record in cycles
        ]
        chain = Planned(
            scheduled=[r for p in planned for r in p.scheduled],
            waiting={k: v for p in planned for k, v in p.waiting.items()},
        )
        try:
            if chain.scheduled:
                RunLog(board.ledger).schedule(chain.scheduled)
        except RunMoved:
            continue
        return chain
    raise RunMoved(f"verdict chains kept being scheduled by others during {ATTEMPTS} attempts")


def tried(state: Methodology, runs: Mapping[str, RunState], run_id: str) -> Tried | None:
    """A run as the verdict chain reads it: recorded (judged, with what was decided against it
    since), else as the runner holds it; None when neither knows it."""
    recorded = state.runs.get(run_id)
    if recorded is not None:
        event = recorded.event
        return Tried(edition=event.edition, closed=True, outcome=state.judge(recorded).outcome)
    run = runs.get(run_id)
    if run is None:
        return None
    return Tried(edition=run.scheduled.edition, closed=run.phase == "closed", outcome=None)
