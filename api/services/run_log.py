"""Runs as the ledger holds them: each run's lifecycle stream, appended at its next version
(the ledger's optimistic concurrency: a writer that lost the race gets `RunMoved`), and a board
of every run folded incrementally by position."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from eventsourcing.persistence import IntegrityError

from domain.errors import ArgusicError, NotFound
from domain.events import DomainEvent, RunEvent, RunScheduled, streams
from domain.runner.lifecycle import RunState, apply, fold, initial
from ledger.ledger import Ledger, NewEvent

ATTEMPT = streams.attempt("")


class RunMoved(ArgusicError, RuntimeError):
    """Someone else appended to the run first (a cancel, another worker): read it again."""


def is_run_event(event: DomainEvent) -> bool:
    return event.stream.startswith(ATTEMPT)


class RunLog:
    """One run's stream: read it, or append to it at its next version."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def load(self, run_id: str) -> RunState:
        events = [r.event for r in self.ledger.stream(streams.attempt(run_id))]
        if not events:
            raise NotFound(f"no run {run_id}")
        return fold(events)  # type: ignore[arg-type]

    def append(
        self, state: RunState, *events: RunEvent, beside: Sequence[NewEvent] = ()
    ) -> RunState:
        """Apply `events` to `state` (the lifecycle refuses an illegal one) and append them,
        with `beside` (events of other streams) in the same batch; RunMoved if the stream
        moved since `state` was read."""
        batch = []
        for event in events:
            state = apply(state, event)
            batch.append(NewEvent(event, state.version))
        try:
            self.ledger.append([*batch, *beside])
        except IntegrityError:
            raise RunMoved(f"run {state.run_id} moved: read it again") from None
        return state

    def schedule(self, runs: Sequence[RunScheduled], beside: Sequence[NewEvent] = ()) -> None:
        """Append new runs (version 1 of their streams): all of them, or none."""
        try:
            self.ledger.append([*(NewEvent(r, 1) for r in runs), *beside])
        except IntegrityError:
            raise RunMoved("a run was scheduled by someone else meanwhile") from None


@dataclass
class RunBoard:
    """Every run's state, folded from the ledger's runner events, kept up to date by position."""

    ledger: Ledger
    runs: dict[str, RunState] = field(default_factory=dict)
    position: int = 0

    def refresh(self) -> RunBoard:
        for recorded in self.ledger.events(after=self.position):
            self.position = recorded.position
            event = recorded.event
            if not is_run_event(event):
                continue
            if isinstance(event, RunScheduled):
                self.runs[event.run_id] = initial(event)
            else:
                run_id = event.run_id  # type: ignore[union-attr]
                self.runs[run_id] = apply(self.runs[run_id], event)  # type: ignore[arg-type]
        return self
