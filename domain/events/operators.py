"""Operators' keys and signed actions, and what each action decides (ARCHITECTURE.md,
"Operators"): every action is recorded as signed (`OperatorActed`), followed in the same batch
by the facts it decides."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from domain.events import streams
from domain.events.base import Event, Text

Position = Annotated[int, msgspec.Meta(ge=0)]


class Action(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="action"
):
    """Base of what an operator may sign, told apart by its `action`."""


class ApprovePublication(Action, frozen=True, tag="approve_publication"):
    """Section 1: a person approves the ledger up to `position` for the public."""

    position: Position


class Review(Action, frozen=True, tag="review"):
    """Section 15: a person's finding on a project under review in a cycle."""

    project: Text
    cycle: Text
    finding: Literal["environment", "project"]
    note: str = ""


class CloseCycle(Action, frozen=True, tag="close_cycle"):
    """Section 6: the cycle ends; its secret pool is published with the next approval."""

    cycle: Text


class DisputeOpen(Action, frozen=True, tag="dispute_open"):
    """Section 19: a maintainer or a lab disputes a run's result."""

    run_id: Text
    claimant: Text
    claim: Text


class DisputeResolve(Action, frozen=True, tag="dispute_resolve"):
    """Section 19: `rerun` when our environment or configuration affected it (the run is
    voided with the note and run again), `upheld` when the evidence supports it (the note says
    what the recording shows)."""

    dispute: Text
    outcome: Literal["upheld", "rerun"]
    note: Text


class ReleaseHold(Action, frozen=True, tag="release_hold"):
    """SI-IQ section 8: a person releases a held value."""

    hold: Text
    note: Text


class ApproveRevision(Action, frozen=True, tag="approve_revision"):
    """SI-IQ section 8: a person approves a benchmark's revision to the values of a snapshot."""

    benchmark: Text
    snapshot: Text


class ApproveAlias(Action, frozen=True, tag="approve_alias"):
    """SI-IQ section 1: a maintainer confirms or corrects how a source names a model group."""

    source: Text
    name: Text
    group: Text
    justification: Text


class InvalidateRuns(Action, frozen=True, tag="invalidate_runs"):
    """Section 20: runs found invalid after they were recorded (the changelog's v1.3 entry voided
    92 at once), each with the reason, and asked for again when `rerun`; all or none."""

    runs: Annotated[list[Text], msgspec.Meta(min_length=1, max_length=10_000)]
    reason: Text
    rerun: bool = False


class RequestReproduction(Action, frozen=True, tag="request_reproduction"):
    """Section 18: run a recorded result again, `runs` times, with everything it ran with pinned
    (commit, agent configuration, image digest, instructions, budget), to see whether it holds."""

    run_id: Text
    requested_by: Text
    runs: Annotated[int, msgspec.Meta(ge=1, le=10)] = 3
    note: str = ""


class RequestStronger(Action, frozen=True, tag="request_stronger"):
    """Section 11: the cycle's stronger agent on a project of its pool (from v1.3 it runs only on
    this)."""

    project: Text
    cycle: Text


class ExcludeCandidate(Action, frozen=True, tag="exclude_candidate"):
    """Section 6: a person keeps a candidate out of the project pool, naming why."""

    project: Text
    reason: Text


class SelectPool(Action, frozen=True, tag="select_pool"):
    """Section 6: draw a cycle's pools from the recorded candidates, `size` projects of which 20 %
    secret, as of the reference date `opens`."""

    cycle: Text
    opens: date
    size: Annotated[int, msgspec.Meta(ge=1, le=500)]


class AddOperator(Action, frozen=True, tag="add_operator"):
    """An owner registers a key (the first owner registers itself: `operator init`)."""

    name: Text
    public_key: Text
    role: Literal["owner", "operator"]


class RevokeOperator(Action, frozen=True, tag="revoke_operator"):
    """An owner revokes a key: actions it signs from then on are refused."""

    name: Text


OperatorAction = (
    ApprovePublication
    | Review
    | CloseCycle
    | DisputeOpen
    | DisputeResolve
    | ReleaseHold
    | ApproveRevision
    | ApproveAlias
    | InvalidateRuns
    | RequestReproduction
    | RequestStronger
    | ExcludeCandidate
    | SelectPool
    | AddOperator
    | RevokeOperator
)


class OperatorActed(Event, frozen=True):
    """A signed action, exactly as signed: an auditor re-verifies the signature from an export.
    Its sequence must be its key's next where it is read: a replay counts nowhere."""

    action: OperatorAction
    operator: str
    key_id: str
    sequence: int
    signed_at: datetime
    signature: str
    ledger: str = ""
    """The checkpoint origin of the ledger it was signed for (none before actions named one:
    such an action counts nowhere)."""
    decides: int = 0
    """How many events right after it, in its own append batch, are the facts it decides (set
    when it is appended, not signed: no fact outside them is its decision)."""

    @property
    def stream(self) -> str:
        return streams.operator_key(self.key_id)


class OperatorRegistered(Event, frozen=True):
    name: str
    key_id: str
    public_key: str
    """The signed-note verifier key: `<name>+<hex key id>+<base64(0x01 || key)>`."""
    role: Literal["owner", "operator"]

    @property
    def stream(self) -> str:
        return streams.OPERATORS


class OperatorRevoked(Event, frozen=True):
    name: str
    key_id: str

    @property
    def stream(self) -> str:
        return streams.OPERATORS


class PublicationApproved(Event, frozen=True):
    """The public sees the ledger as of `position` (a signed checkpoint's size)."""

    position: int
    operator: str

    @property
    def stream(self) -> str:
        return streams.PUBLICATION


class StreamHeadsCommitted(Event, frozen=True):
    """With an approval of `position`: the root of the map of every stream's head (its last
    version and that event's hash) as of `size`, the ledger's size when the approval was judged
    (`ledger.heads_map`); an audit bundle proves against it that it left no event out."""

    position: Position
    size: Position
    streams: Position
    root: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]

    @property
    def stream(self) -> str:
        return streams.STREAM_HEADS


class CycleClosed(Event, frozen=True):
    cycle: str
    operator: str

    @property
    def stream(self) -> str:
        return streams.cycle(self.cycle)


class DisputeOpened(Event, frozen=True):
    dispute: str
    run_id: str
    claimant: str
    claim: str
    operator: str

    @property
    def stream(self) -> str:
        return streams.dispute(self.dispute)


class DisputeResolved(Event, frozen=True):
    dispute: str
    run_id: str
    outcome: Literal["upheld", "rerun"]
    note: str
    operator: str

    @property
    def stream(self) -> str:
        return streams.dispute(self.dispute)


class HoldReleased(Event, frozen=True):
    hold: str
    note: str
    operator: str

    @property
    def stream(self) -> str:
        return streams.hold(self.hold)


class RevisionApproved(Event, frozen=True):
    benchmark: str
    snapshot: str
    operator: str

    @property
    def stream(self) -> str:
        return streams.revision(self.benchmark)


def action_name(action: Action) -> str:
    """What an action is called in an action file (its `action` tag)."""
    return str(action.__struct_config__.tag)
