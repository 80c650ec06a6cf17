"""One run's lifecycle as a state machine over its events (methodology section 7, points 1-6,
"La clave del modelo", and section 11): no Docker, no clock; every time is in the events.

    scheduled -> claimed -> key requested -> key created | key creation failed (scheduled again)
      -> source fetched -> sandbox created -> agent started
      -> exactly one of: agent exited / timed out / cancelled / aborted
      -> evidence stored, key deleted, sandbox removed (any order, each once) -> closed

A run can be cancelled or aborted at any step after its claim (and cancelled before it); an
agent whose key mode is `shared_vendor` goes from its claim straight to its source.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

import msgspec

from domain.errors import InvalidInput
from domain.events import (
    AgentExited,
    AgentStarted,
    AgentTimedOut,
    Ended,
    EvidenceStored,
    ModelKeyCreated,
    ModelKeyCreationFailed,
    ModelKeyDeleted,
    ModelKeyRequested,
    RunAborted,
    RunCancelled,
    RunClaimed,
    RunClosed,
    RunEvent,
    RunScheduled,
    SandboxCreated,
    SandboxRemoved,
    SourceFetched,
)
from domain.runner.budgets import needs_gpu

Phase = Literal[
    "scheduled",
    "claimed",
    "key_requested",
    "key_ready",
    "source_ready",
    "sandbox_ready",
    "running",
    "ending",
    "closed",
]
ENDINGS = (AgentExited, AgentTimedOut, RunCancelled, RunAborted)
_ENDED: dict[type, Ended] = {
    AgentExited: "exited",
    AgentTimedOut: "timed_out",
    RunCancelled: "cancelled",
    RunAborted: "aborted",
}
_BEFORE_START = ("claimed", "key_requested", "key_ready", "source_ready", "sandbox_ready")


class IllegalTransition(InvalidInput):
    """An event the run's lifecycle does not allow where the run is."""

    def __init__(self, run_id: str, phase: str, event: object) -> None:
        super().__init__(f"run {run_id}: {type(event).__name__} is not allowed when {phase}")
        self.run_id = run_id
        self.phase = phase


class RunState(msgspec.Struct, frozen=True, kw_only=True):
    """Where a run is, and what of it exists outside (a key, a sandbox) until removed."""

    scheduled: RunScheduled
    phase: Phase = "scheduled"
    version: int = 1
    """The stream version of the last event applied: the next one goes at version + 1."""
    claim: int = 0
    worker: str | None = None
    claimed_at: datetime | None = None
    deadline: datetime | None = None
    not_before: datetime | None = None
    key_name: str | None = None
    key_hash: str | None = None
    key_deleted: bool = False
    sandbox: str | None = None
    sandbox_removed: bool = False
    image_digest: str | None = None
    environment: SandboxCreated | None = None
    """The sandbox as created: engine, limits and instructions (section 18)."""
    source: SourceFetched | None = None
    started_at: datetime | None = None
    timeout_at: datetime | None = None
    ended: Ended | None = None
    ending: AgentExited | AgentTimedOut | RunCancelled | RunAborted | None = None
    evidence: EvidenceStored | None = None
    closed: RunClosed | None = None

    @property
    def run_id(self) -> str:
        return self.scheduled.run_id


def initial(event: RunScheduled) -> RunState:
    return RunState(scheduled=event, not_before=event.not_before)


def _at(state: RunState, phase: Phase, **changes: object) -> RunState:
    return msgspec.structs.replace(state, phase=phase, version=state.version + 1, **changes)


def _same(state: RunState, **changes: object) -> RunState:
    return msgspec.structs.replace(state, version=state.version + 1, **changes)


def apply(state: RunState, event: RunEvent) -> RunState:  # noqa: PLR0911, PLR0912
    """The run after `event`; raises IllegalTransition for an event its phase does not allow."""
    phase = state.phase
    match event:
        case RunClaimed() if phase == "scheduled" and event.claim == state.claim + 1:
            if state.not_before is not None and event.claimed_at < state.not_before:
                raise IllegalTransition(state.run_id, f"{phase} until {state.not_before}", event)
            return _at(
                state,
                "claimed",
                claim=event.claim,
                worker=event.worker,
                claimed_at=event.claimed_at,
                deadline=event.deadline,
                key_name=None,
            )
        case ModelKeyRequested() if phase == "claimed" and state.scheduled.key == "per_run":
            return _at(state, "key_requested", key_name=event.key_name)
        case ModelKeyCreated() if phase == "key_requested" and event.key_name == state.key_name:
            return _at(state, "key_ready", key_hash=event.key_hash)
        case ModelKeyCreationFailed() if phase == "key_requested":
            return _at(state, "scheduled", not_before=event.retry_after, worker=None)
        case SourceFetched() if phase == "key_ready" or (
            phase == "claimed" and state.scheduled.key == "shared_vendor"
        ):
            return _at(state, "source_ready", source=event)
        case SandboxCreated() if phase == "source_ready":
            return _at(
                state,
                "sandbox_ready",
                sandbox=event.name,
                image_digest=event.image_digest,
                environment=event,
            )
        case AgentStarted() if phase == "sandbox_ready":
            return _at(state, "running", started_at=event.started_at, timeout_at=event.timeout_at)
        case AgentExited() | AgentTimedOut() if phase == "running":
            return _at(state, "ending", ended=_ENDED[type(event)], ending=event)
        case RunCancelled() if phase in ("scheduled", "running", *_BEFORE_START):
            return _at(state, "ending", ended="cancelled", ending=event)
        case RunAborted() if phase in ("running", *_BEFORE_START):
            return _at(state, "ending", ended="aborted", ending=event)
        case EvidenceStored() if phase == "ending" and _started(state) and not state.evidence:
            return _same(state, evidence=event)
        case ModelKeyDeleted() if _key_to_delete(state) and event.key_hash == state.key_hash:
            return _same(state, key_deleted=True)
        case SandboxRemoved() if _sandbox_to_remove(state) and event.name == state.sandbox:
            return _same(state, sandbox_removed=True)
        case RunClosed() if phase == "ending" and not leftovers(state) and _closes(state, event):
            return _at(state, "closed", closed=event)
    raise IllegalTransition(state.run_id, phase, event)


def _started(state: RunState) -> bool:
    return state.started_at is not None


def _key_to_delete(state: RunState) -> bool:
    """A created key may be deleted at any time after its creation (at the deadline it is
    deleted in parallel with the sandbox's kill), once."""
    return state.key_hash is not None and not state.key_deleted and state.phase != "closed"


def _sandbox_to_remove(state: RunState) -> bool:
    """A sandbox is removed only once the run has ended."""
    return state.phase == "ending" and state.sandbox is not None and not state.sandbox_removed


def _closes(state: RunState, event: RunClosed) -> bool:
    """The closing names how the run ended, and an aborted run (only) names its rerun."""
    return event.ended == state.ended and (event.rerun is not None) == (state.ended == "aborted")


def leftovers(state: RunState) -> list[str]:
    """What of the run still exists outside: its key, its sandbox."""
    left = []
    if state.key_hash is not None and not state.key_deleted:
        left.append(f"key {state.key_hash}")
    if state.sandbox is not None and not state.sandbox_removed:
        left.append(f"sandbox {state.sandbox}")
    return left


def fold(events: Iterable[RunEvent]) -> RunState:
    """The state of a run from its stream, in order (the first event is its RunScheduled)."""
    source = iter(events)
    first = next(source, None)
    if not isinstance(first, RunScheduled):
        raise InvalidInput("a run's stream starts with its RunScheduled")
    state = initial(first)
    for event in source:
        state = apply(state, event)
    return state


def is_live(state: RunState, now: datetime) -> bool:
    """Methodology section 7, "La clave del modelo": a claimed run owns its key and sandbox
    until it closes, and never past its deadline; after it, nothing of it is live and the
    sweeper may remove it whoever started it."""
    claimed = state.phase not in ("scheduled", "closed")
    return claimed and state.deadline is not None and now < state.deadline


def claimable(state: RunState, now: datetime, *, gpu: bool = False) -> bool:
    """A scheduled run may be claimed once any retry delay is over; one whose project needs a
    GPU (methodology section 6a, "necesita un worker con GPU") only by a worker that has one
    (`gpu`)."""
    if needs_gpu(state.scheduled) and not gpu:
        return False
    return state.phase == "scheduled" and (state.not_before is None or now >= state.not_before)


GPU_WAIT = "a worker started with --gpu (the project needs a GPU, methodology section 6a)"


def waiting_for(state: RunState, now: datetime | None) -> str | None:
    """What a scheduled run waits for besides a free worker, in words (`argusic runs`): a
    worker with a GPU for a run that needs one (whether one is up is not recorded: the run's
    need is), and the end of a retry delay as of `now`."""
    if state.phase != "scheduled":
        return None
    reasons = [GPU_WAIT] if needs_gpu(state.scheduled) else []
    if state.not_before is not None and now is not None and now < state.not_before:
        reasons.append(f"its retry time, {state.not_before.isoformat().replace('+00:00', 'Z')}")
    return "; ".join(reasons) or None
