"""`argusic runs`: every run the runner knows, where it is, and (once recorded) its outcome and
score by the rubric (ARCHITECTURE.md, "Wave 2 JSON outputs")."""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import msgspec

from api.services.run_log import RunBoard
from domain.events import Ended, RerunRequested, RunRecorded, streams
from domain.runner.lifecycle import RunState
from domain.runs import run_outcome, total
from ledger.ledger import Ledger

RunView = Literal["scheduled", "running", "finished"]


class RunRow(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    state: RunView
    agent: str
    project: str
    attempt: str
    budget_minutes: float
    outcome: str | None
    score: float | None
    ended: Ended | None
    image_digest: str | None = None


class RunsDocument(msgspec.Struct, frozen=True, kw_only=True):
    runs: list[RunRow]


def view_of(state: RunState) -> RunView:
    if state.phase == "scheduled":
        return "scheduled"
    return "finished" if state.phase == "closed" else "running"


def _recorded(ledger: Ledger, run_id: str) -> tuple[RunRecorded | None, str | None]:
    run = next(
        (r.event for r in ledger.stream(streams.run(run_id)) if isinstance(r.event, RunRecorded)),
        None,
    )
    rerun = next(
        (
            r.event.reason
            for r in ledger.stream(streams.rerun(run_id))
            if isinstance(r.event, RerunRequested)
        ),
        None,
    )
    return run, rerun


def _number(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def list_runs(ledger: Ledger, state: RunView | None = None) -> RunsDocument:
    board = RunBoard(ledger).refresh()
    rows = []
    for run in sorted(board.runs.values(), key=lambda s: (s.scheduled.scheduled_at, s.run_id)):
        view = view_of(run)
        if state is not None and view != state:
            continue
        recorded, rerun = _recorded(ledger, run.run_id) if view == "finished" else (None, None)
        rows.append(
            RunRow(
                run_id=run.run_id,
                state=view,
                agent=run.scheduled.agent.id,
                project=run.scheduled.project.id,
                attempt=run.scheduled.attempt,
                budget_minutes=run.scheduled.budget_seconds / 60,
                outcome=None if recorded is None else run_outcome(recorded, rerun),
                score=None if recorded is None else _number(total(recorded, rerun)),
                ended=run.ended,
                image_digest=run.image_digest,
            )
        )
    return RunsDocument(runs=rows)
