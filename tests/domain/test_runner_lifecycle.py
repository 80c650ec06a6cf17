"""The run lifecycle as a state machine: every transition, and every event refused where the
run is (methodology section 7 and section 11)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from domain.events import RunEvent
from domain.runner.lifecycle import (
    IllegalTransition,
    RunState,
    apply,
    claimable,
    fold,
    initial,
    is_live,
    leftovers,
)
from tests import runner_events as ev

HAPPY = [
    ev.claimed(),
    ev.key_requested(),
    ev.key_created(),
    ev.source(),
    ev.sandbox(),
    ev.started(),
    ev.exited(),
    ev.evidence(),
    ev.key_deleted(),
    ev.sandbox_removed(),
    ev.closed(),
]

EVERY_KIND: dict[str, Callable[[], RunEvent]] = {
    "claimed": ev.claimed,
    "key_requested": ev.key_requested,
    "key_created": ev.key_created,
    "key_failed": ev.key_failed,
    "source": ev.source,
    "sandbox": ev.sandbox,
    "started": ev.started,
    "exited": ev.exited,
    "timed_out": ev.timed_out,
    "cancelled": ev.cancelled,
    "aborted": ev.aborted,
    "evidence": ev.evidence,
    "key_deleted": ev.key_deleted,
    "sandbox_removed": ev.sandbox_removed,
    "closed": ev.closed,
}

# Which kinds each phase of the happy path (per_run key) allows next.
ALLOWED = {
    "scheduled": {"claimed", "cancelled"},
    "claimed": {"key_requested", "cancelled", "aborted"},
    "key_requested": {"key_created", "key_failed", "cancelled", "aborted"},
    "key_ready": {"source", "cancelled", "aborted", "key_deleted"},
    "source_ready": {"sandbox", "cancelled", "aborted", "key_deleted"},
    "sandbox_ready": {"started", "cancelled", "aborted", "key_deleted"},
    "running": {"exited", "timed_out", "cancelled", "aborted", "key_deleted"},
}


def states_along_happy_path() -> list[RunState]:
    state = initial(ev.scheduled())
    states = [state]
    for event in HAPPY[:6]:
        state = apply(state, event)
        states.append(state)
    return states


def test_the_happy_path_runs_from_scheduled_to_closed() -> None:
    state = fold([ev.scheduled(), *HAPPY])
    assert state.phase == "closed"
    assert state.ended == "exited"
    assert state.version == 1 + len(HAPPY)
    assert leftovers(state) == []


@pytest.mark.parametrize("state", states_along_happy_path(), ids=lambda s: s.phase)
@pytest.mark.parametrize("kind", sorted(EVERY_KIND))
def test_every_event_is_allowed_or_refused_by_phase(state: RunState, kind: str) -> None:
    event = EVERY_KIND[kind]()
    if kind in ALLOWED[state.phase]:
        assert apply(state, event).version == state.version + 1
    else:
        with pytest.raises(IllegalTransition, match=type(event).__name__):
            apply(state, event)


@pytest.mark.parametrize("ending", ["exited", "timed_out", "cancelled", "aborted"])
def test_exactly_one_ending_then_cleanup_in_any_order(ending: str) -> None:
    state = fold([ev.scheduled(), *HAPPY[:6], EVERY_KIND[ending]()])
    assert state.phase == "ending"
    assert state.ended == ending
    for other in ("exited", "timed_out", "cancelled", "aborted"):
        with pytest.raises(IllegalTransition):
            apply(state, EVERY_KIND[other]())
    for order in (
        [ev.sandbox_removed, ev.key_deleted, ev.evidence],
        [ev.evidence, ev.key_deleted, ev.sandbox_removed],
    ):
        after = state
        for make in order:
            after = apply(after, make())
            with pytest.raises(IllegalTransition):
                apply(after, make())  # each cleanup step once
        rerun = "r2" if ending == "aborted" else None
        assert apply(after, ev.closed(ending, rerun)).phase == "closed"


def test_a_run_does_not_close_while_its_key_or_sandbox_is_left() -> None:
    state = fold([ev.scheduled(), *HAPPY[:7], ev.evidence()])
    assert leftovers(state) == ["key h1", "sandbox argusic-run-x-c1-n"]
    with pytest.raises(IllegalTransition):
        apply(state, ev.closed())
    state = apply(state, ev.key_deleted())
    with pytest.raises(IllegalTransition):
        apply(state, ev.closed())


def test_closing_names_the_ending_and_only_an_aborted_run_names_its_rerun() -> None:
    done = fold([ev.scheduled(), *HAPPY[:7], ev.key_deleted(), ev.sandbox_removed()])
    with pytest.raises(IllegalTransition):
        apply(done, ev.closed("timed_out"))
    with pytest.raises(IllegalTransition):
        apply(done, ev.closed("exited", rerun="r2"))
    aborted = fold(
        [ev.scheduled(), *HAPPY[:6], ev.aborted(), ev.key_deleted(), ev.sandbox_removed()]
    )
    with pytest.raises(IllegalTransition):
        apply(aborted, ev.closed("aborted"))
    assert apply(aborted, ev.closed("aborted", rerun="r2")).closed is not None


def test_a_closed_run_takes_nothing_more() -> None:
    state = fold([ev.scheduled(), *HAPPY])
    for kind, make in EVERY_KIND.items():
        with pytest.raises(IllegalTransition):
            apply(state, make())
        assert kind


def test_key_creation_failed_puts_the_run_back_and_it_waits() -> None:
    """Section 7, "La clave del modelo": no key, no start; the run is tried again later."""
    state = fold([ev.scheduled(), ev.claimed(), ev.key_requested(), ev.key_failed()])
    assert state.phase == "scheduled"
    assert state.key_hash is None
    assert state.sandbox is None
    retry_after = ev.key_failed().retry_after
    assert not claimable(state, retry_after - timedelta(seconds=1))
    assert claimable(state, retry_after)
    with pytest.raises(IllegalTransition, match="until"):
        apply(state, ev.claimed(claim=2, at=retry_after - timedelta(seconds=1)))
    with pytest.raises(IllegalTransition):
        apply(state, ev.claimed(claim=1, at=retry_after))  # a claim number is never reused
    again = apply(state, ev.claimed(claim=2, at=retry_after))
    assert again.claim == 2
    with pytest.raises(IllegalTransition):
        apply(again, ev.key_created(claim=1))  # the first claim's key is not this claim's
    assert apply(apply(again, ev.key_requested(claim=2)), ev.key_created(claim=2)).key_hash


def test_a_per_run_agent_has_no_path_to_its_source_without_a_key() -> None:
    """Section 7: never a shared key in place of a per-run key."""
    state = fold([ev.scheduled("per_run"), ev.claimed()])
    with pytest.raises(IllegalTransition):
        apply(state, ev.source())
    shared = fold([ev.scheduled("shared_vendor"), ev.claimed()])
    with pytest.raises(IllegalTransition):
        apply(shared, ev.key_requested())
    assert apply(shared, ev.source()).phase == "source_ready"


def test_a_sandbox_is_removed_only_after_the_run_ended() -> None:
    state = fold([ev.scheduled(), *HAPPY[:6]])
    with pytest.raises(IllegalTransition):
        apply(state, ev.sandbox_removed())
    with pytest.raises(IllegalTransition):
        apply(state, ev.evidence())


def test_evidence_only_for_a_run_whose_agent_started() -> None:
    state = fold([ev.scheduled(), *HAPPY[:4], ev.aborted()])
    with pytest.raises(IllegalTransition):
        apply(state, ev.evidence())
    assert apply(apply(state, ev.key_deleted()), ev.closed("aborted", "r2")).phase == "closed"


def test_a_run_is_live_only_until_its_deadline() -> None:
    running = fold([ev.scheduled(), *HAPPY[:6]])
    assert is_live(running, ev.DEADLINE - timedelta(seconds=1))
    assert not is_live(running, ev.DEADLINE)
    assert not is_live(initial(ev.scheduled()), ev.T0)
    ended = apply(running, ev.exited())  # still cleaning up: its worker owns what is left
    assert is_live(ended, ev.T0)
    assert not is_live(ended, ev.DEADLINE)
    assert not is_live(fold([ev.scheduled(), *HAPPY]), ev.T0)


def test_a_stream_must_start_with_its_scheduling() -> None:
    with pytest.raises(ValueError, match="RunScheduled"):
        fold([ev.claimed()])
