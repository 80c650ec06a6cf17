"""`schedule --cycle C`: plan, from the ledger, every run a cycle needs (methodology section 7,
point 4, and section 11), under the edition in force, every run of it asked for again (sections
11, 15, 17, 19, 20), the next steps of its projects' verdict chains (section 11) and every run of
a reproduction (section 18); a second call adds nothing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial

import msgspec
from eventsourcing.persistence import IntegrityError

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard, RunLog, RunMoved
from domain.editions import version_key
from domain.errors import NotFound, Rejected
from domain.events import RunScheduled
from domain.runner.config import OrchestratorConfig
from domain.runner.lifecycle import RunState
from domain.runner.schedule import (
    AsRan,
    Plan,
    Planned,
    Tried,
    as_it_ran,
    plan_chain,
    plan_cycle,
    plan_reproductions,
    plan_reruns,
)
from domain.state.methodology import Methodology
from domain.state.publication import public_pool_unpublished
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection

ATTEMPTS = 5


class ScheduleReport(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    scheduled: list[str]
    reruns_waiting: dict[str, str] = {}
    """Runs asked for again (or to reproduce) that cannot be scheduled yet, with why."""
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
    fixed = public_pool_unpublished(state, cycle_id)
    if fixed is not None:
        raise Rejected(
            "section 6",
            f"cycle {cycle_id}: its public pool (fixed at position {fixed}) is in no approved "
            "publication yet; the public pool is published before the cycle",
        )
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
    reproductions = schedule_reproductions(reader, board, config, clock)
    report_reproductions(reader, ledger)
    again = [*reruns.scheduled, *chain.scheduled, *reproductions.scheduled]
    return ScheduleReport(
        cycle=cycle_id,
        scheduled=[r.run_id for r in [*runs, *again]],
        reruns_waiting=reruns.waiting | reproductions.waiting,
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
    at once. `reader` and `board` (the ledger's methodology and runs) fold on from where they
    last read."""
    state = reader.latest()
    requested = [
        run_id
        for run_id in state.reruns
        if cycle is None or (run_id in state.runs and state.runs[run_id].event.cycle == cycle)
    ]
    return _scheduled(
        board,
        lambda known: plan_reruns(requested, _as_ran(state, known, config, clock), known=known),
    )


def schedule_chain(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
    *,
    cycle: str | None = None,
) -> Planned:
    """The next attempts of every verdict chain (section 11) of `cycle`, or of every cycle, each
    scheduled once, appended at once."""
    state = reader.latest()
    cycles = [c for c in state.cycles.values() if cycle is None or c.id == cycle]

    def plan(runs: Mapping[str, RunState]) -> Planned:
        now = _plan(config, clock)
        planned = [
            plan_chain(
                record,
                state.agents,
                partial(tried, state, runs),
                state.stronger_requested.get(record.id, {}),
                now,
            )
            for record in cycles
        ]
        return Planned(
            scheduled=[r for p in planned for r in p.scheduled],
            waiting={k: v for p in planned for k, v in p.waiting.items()},
        )

    return _scheduled(board, plan)


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


def schedule_reproductions(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
) -> Planned:
    """Every run of every reproduction request not yet scheduled (section 18), appended at once."""
    state = reader.latest()
    requests = [r for asked in state.reproductions.values() for r in asked]
    recorded = {r.run_id: state.runs[r.run_id].event for r in requests if r.run_id in state.runs}

    def plan(known: Mapping[str, RunState]) -> Planned:
        as_ran = _as_ran(state, known, config, clock)
        return plan_reproductions(requests, as_ran, recorded, known=known)

    return _scheduled(board, plan)


def _as_ran(
    state: Methodology,
    known: Mapping[str, RunState],
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
) -> AsRan:
    """A run scheduled again as it ran: from its schedule when Argusic ran it, else its record."""
    plan = _plan(config, clock)

    def as_ran(run_id: str) -> RunScheduled | str:
        run, record = known.get(run_id), state.runs.get(run_id)
        scheduled = None if run is None else run.scheduled
        return as_it_ran(
            run_id, scheduled, None if record is None else record.event, state.agents, plan
        )

    return as_ran


def report_reproductions(reader: ProjectionReader[Methodology], ledger: Ledger) -> list[str]:
    """Section 18: a report for every reproduction whose runs have all been recorded, once (a
    second reporter's append losing changes nothing); the requests reported."""
    state = reader.latest()
    reports = [
        report
        for asked in state.reproductions.values()
        for request in asked
        if request.request not in state.reproduction_reports
        and (report := state.reported(request)) is not None
    ]
    for report in reports:
        with contextlib.suppress(IntegrityError):
            ledger.append(ledger.next_versions([report]))
    return [r.request for r in reports]


def schedule_asked(
    reader: ProjectionReader[Methodology],
    board: RunBoard,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
) -> None:
    """What every worker loop does whenever the ledger grew: every run asked for again, every
    verdict chain's next attempt and every run to reproduce, scheduled, and every reproduction
    whose runs all ended, reported."""
    schedule_reruns(reader, board, config, clock)
    schedule_chain(reader, board, config, clock)
    schedule_reproductions(reader, board, config, clock)
    report_reproductions(reader, board.ledger)


def _plan(config: OrchestratorConfig, clock: Callable[[], datetime]) -> Plan:
    return Plan(config.budgets, config.sandbox.grace_seconds, clock())


def _scheduled(board: RunBoard, plan: Callable[[Mapping[str, RunState]], Planned]) -> Planned:
    """The runs `plan` gives against the runs known, appended at once; planned again against
    another scheduler's runs when it appended first (`RunMoved`), so each is scheduled once."""
    for _ in range(ATTEMPTS):
        planned = plan(board.refresh().runs)
        try:
            if planned.scheduled:
                RunLog(board.ledger).schedule(planned.scheduled)
        except RunMoved:
            continue
        return planned
    raise RunMoved(f"runs kept being scheduled by others during {ATTEMPTS} attempts")
