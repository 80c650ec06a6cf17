"""A run's reproductions (methodology section 18): each request's runs, their outcomes and scores
beside the original's, whether the outcome held, and what differed in what ran."""

from __future__ import annotations

import msgspec

from domain.events.methodology import Difference, ReproductionRequested
from domain.reproduction import differences
from domain.state.methodology import Methodology
from projections.views.approved import Approved


class ReproductionRunRow(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    state: str
    """The run's recorded status, or "not yet recorded"."""
    outcome: str | None
    score: float | None
    ended: str | None


class ReproductionRow(msgspec.Struct, frozen=True, kw_only=True):
    request: str
    requested_by: str
    note: str
    runs: list[ReproductionRunRow]
    done: bool
    """Every run of it ended, and the report is recorded."""
    same_outcome: bool | None
    differences: list[Difference]


class ReproductionsView(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    as_of: int
    outcome: str | None
    """The original's outcome, which each reproduction is compared with."""
    score: float | None
    reproductions: list[ReproductionRow]
    approved: Approved | None = None


def _row(state: Methodology, request: ReproductionRequested) -> ReproductionRow:
    report = state.reproduction_reports.get(request.request)
    runs, recorded = [], []
    for run_id in request.runs:
        run = state.reproduced.get(run_id)
        if run is None:
            runs.append(
                ReproductionRunRow(
                    run_id=run_id, state="not yet recorded", outcome=None, score=None, ended=None
                )
            )
            continue
        judged = state.judge(run)
        recorded.append(run.event)
        runs.append(
            ReproductionRunRow(
                run_id=run_id,
                state=run.event.status,
                outcome=judged.outcome,
                score=None if judged.lines is None else float(judged.lines.total),
                ended=run.event.finished_at.isoformat(),
            )
        )
    original = state.runs[request.run_id].event
    return ReproductionRow(
        request=request.request,
        requested_by=request.requested_by,
        note=request.note,
        runs=runs,
        done=report is not None,
        same_outcome=None if report is None else report.same_outcome,
        differences=report.differences if report else differences(original, recorded),
    )


def reproductions_view(state: Methodology, as_of: int, run_id: str) -> ReproductionsView:
    """The run's reproduction requests as of `as_of`, in the order made."""
    judged = state.judge(state.find_run(run_id, as_of))
    return ReproductionsView(
        run_id=run_id,
        as_of=as_of,
        outcome=judged.outcome,
        score=None if judged.lines is None else float(judged.lines.total),
        reproductions=[_row(state, r) for r in state.reproductions.get(run_id, [])],
    )
