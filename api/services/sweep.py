"""The sweeper (methodology section 7, "La clave del modelo": "un barrido programado elimina
cualquier clave que ya no pertenezca a un trabajo en curso"): every run key and sandbox that no
live run owns is deleted, found by name prefix and labels and checked against the ledger, so it
works when the worker that made them is gone. A run is live only until its deadline."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime

from eventsourcing.persistence import IntegrityError

from api.services.run_end import IN_PROGRESS, abort, finish
from api.services.run_log import RunBoard
from api.services.runner_ports import Runner
from domain.errors import ArgusicError
from domain.events import SweepCompleted
from domain.runner.lifecycle import RunState, is_live
from domain.runner.naming import (
    LABEL_CLAIM,
    LABEL_DEADLINE,
    LABEL_LEDGER,
    LABEL_RUN,
    parse_key_name,
)
from ledger.ledger import Ledger, NewEvent


@dataclass(frozen=True)
class SweepReport:
    keys_deleted: list[str]
    sandboxes_removed: list[str]
    runs_closed: list[str]


def _owns(state: RunState | None, claim: int | None, now: datetime) -> bool:
    return state is not None and is_live(state, now) and (claim is None or state.claim == claim)


def _past(label: str | None, now: datetime) -> bool:
    """An owner's deadline label that has passed (an unreadable one counts as passed)."""
    try:
        return label is None or datetime.fromisoformat(label) <= now
    except ValueError:
        return True


def sweep(runner: Runner) -> SweepReport:
    """Abort runs past their deadline, delete keys and remove sandboxes no live run owns (those
    of another ledger only after their own deadline), close what can be closed, record it."""
    now = runner.clock()
    board = RunBoard(runner.log.ledger).refresh()
    for state in list(board.runs.values()):
        if state.phase in IN_PROGRESS and state.deadline is not None and now >= state.deadline:
            abort(runner, state, "the run's deadline passed with no worker ending it")
    board.refresh()
    removed = _sweep_sandboxes(runner, board, now)
    deleted = _sweep_keys(runner, board, now)
    closed = []
    for state in list(board.refresh().runs.values()):
        if state.phase != "ending" or is_live(state, now):
            continue
        report = runner.kept_report(state.run_id)
        if finish(runner, state, report, None, by="sweeper").phase == "closed":
            closed.append(state.run_id)
    if removed or deleted:
        done = SweepCompleted(swept_at=now, keys_deleted=deleted, sandboxes_removed=removed)
        _record(runner.log.ledger, done)
    return SweepReport(keys_deleted=deleted, sandboxes_removed=removed, runs_closed=closed)


def _record(ledger: Ledger, done: SweepCompleted, tries: int = 5) -> None:
    """Append what was swept at the sweeps' stream's next version; every worker sweeps on its
    schedule, so another's sweep may take that version first: read it again and retry."""
    for attempt in range(tries):
        try:
            ledger.append([NewEvent(done, len(ledger.stream(done.stream)) + 1)])
            return
        except IntegrityError:
            if attempt == tries - 1:
                raise


def _sweep_sandboxes(runner: Runner, board: RunBoard, now: datetime) -> list[str]:
    removed = []
    for sandbox in runner.sandboxes.owned():
        labels = sandbox.labels
        if labels.get(LABEL_LEDGER) == runner.ledger_tag:
            claim = labels.get(LABEL_CLAIM, "")
            state = board.runs.get(labels.get(LABEL_RUN, ""))
            if _owns(state, int(claim) if claim.isdigit() else None, now):
                continue
        elif not _past(labels.get(LABEL_DEADLINE), now):
            continue  # another ledger's run, still within its deadline
        with contextlib.suppress(ArgusicError):
            if runner.sandboxes.remove(sandbox.name):
                removed.append(sandbox.name)
    return removed


def _sweep_keys(runner: Runner, board: RunBoard, now: datetime) -> list[str]:
    deleted = []
    with contextlib.suppress(ArgusicError):
        for key in list(runner.keys.list()):
            owner = parse_key_name(key.name)
            if owner is None:
                continue  # not a run's key: never ours to touch
            if owner.ledger == runner.ledger_tag:
                if _owns(board.runs.get(owner.run_id), owner.claim, now):
                    continue
            elif key.expires_at is None or key.expires_at > now:
                continue
            with contextlib.suppress(ArgusicError):
                if runner.keys.delete(key.hash):
                    deleted.append(key.hash)
    return deleted
