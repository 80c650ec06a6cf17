"""`argusic runs`: every run the runner knows, where it is, and (once recorded) its outcome and
score by the rubric (ARCHITECTURE.md, "Wave 2 JSON outputs")."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from domain.events import Ended
from domain.runner.budgets import needs_gpu
from domain.runner.lifecycle import RunState, waiting_for
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection

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
    replaces: str | None = None
    """The run this one repeats (asked for again, or cut short by Argusic's tooling)."""
    needs_gpu: bool = False
    """Its project needs a GPU: only a worker started with `--gpu` claims it (section 6a)."""
    waiting: str | None = None
    """A scheduled run: what it waits for besides a free worker (None: nothing else)."""


class RunsDocument(msgspec.Struct, frozen=True, kw_only=True):
    runs: list[RunRow]


def view_of(state: RunState) -> RunView:
    if state.phase == "scheduled":
        return "scheduled"
    return "finished" if state.phase == "closed" else "running"


def list_runs(
    ledger: Ledger, state: RunView | None = None, now: datetime | None = None
) -> RunsDocument:
    """The runs, oldest scheduled first; a scheduled run says what it waits for (a retry delay
    judged as of `now`)."""
    board = RunBoard(ledger).refresh()
    methodology = ProjectionReader(ledger, MethodologyProjection()).latest()
    rows = []
    for run in sorted(board.runs.values(), key=lambda s: (s.scheduled.scheduled_at, s.run_id)):
        view = view_of(run)
        if state is not None and view != state:
            continue
        recorded = methodology.runs.get(run.run_id) if view == "finished" else None
        judged = None if recorded is None else methodology.judge(recorded)
        rows.append(
            RunRow(
                run_id=run.run_id,
                state=view,
                agent=run.scheduled.agent.id,
                project=run.scheduled.project.id,
                attempt=run.scheduled.attempt,
                budget_minutes=run.scheduled.budget_seconds / 60,
                outcome=None if judged is None else judged.outcome,
                score=None if judged is None or judged.lines is None else float(judged.lines.total),
                ended=run.ended,
                image_digest=run.image_digest,
                replaces=run.scheduled.replaces,
                needs_gpu=needs_gpu(run.scheduled),
                waiting=waiting_for(run, now),
            )
        )
    return RunsDocument(runs=rows)
