"""`argusic ledger verify`'s check of authority (ARCHITECTURE.md, "Authority"): integrity proves
nothing changed, not that anyone was allowed. Each signed action must hold as of its position
(its key registered by a chain back to the ledger's first owner, for this ledger, signed in
time, in sequence, by a role allowed to; an approval of a checkpoint's size), and each decision
fact must be one that such an action decides, among the facts recorded with it
(`domain.state.authority`). The first that does not hold is named with its position."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from domain.actions import DECISION_FACTS
from domain.events import (
    DomainEvent,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    PublicationApproved,
    RecordingWithheld,
    RerunRequested,
)
from domain.events.methodology import BY_RULE
from domain.events.operators import ApprovePublication
from domain.operators import Signatures
from domain.state.authority import admit, apply_authority, authorized
from domain.state.records import Authority
from ledger import codec
from ledger.actions import SIGNATURES

CHECKED_TYPES = frozenset(
    {"OperatorActed", "RecordingWithheld", *(t.__name__ for t in DECISION_FACTS)}
)
"""The event types the check reads (every other event is no decision)."""


class Decisions:
    """The check, fed every event of `CHECKED_TYPES` in position order."""

    def __init__(
        self, origin: str, sealed: Callable[[int], bool], signatures: Signatures = SIGNATURES
    ) -> None:
        """`origin`: this ledger's checkpoint origin; `sealed(n)`: whether a checkpoint of size n
        exists."""
        self.origin, self.sealed, self.signatures = origin, sealed, signatures
        self.authority = Authority()
        self.withheld: set[str] = set()
        self.checked = 0

    def problem(self, position: int, appended_at: datetime, event: DomainEvent) -> str | None:
        """Why the event at `position` has no authority, if it has none."""
        match event:
            case OperatorActed():
                self.checked += 1
                return self._action(position, appended_at, event)
            case RecordingWithheld():
                self.withheld.add(event.run_id)
                return None
            case RerunRequested() if event.run_id in self.withheld or event.why in BY_RULE:
                # section 17: a withheld file's run is repeated, by the evidence rules; the
                # runner's rules repeat a run invalid by its record, which sets nothing aside
                return None
            case PublicationApproved() | OperatorRegistered() | OperatorRevoked():
                if apply_authority(self.authority, position, event, self.signatures):
                    return None
            case _ if not isinstance(event, DECISION_FACTS) or authorized(
                self.authority, position, event
            ):
                return None
        name = type(event).__name__
        return f"event {position}: {name} without authority: no signed action decides it"

    def _action(self, position: int, appended_at: datetime, acted: OperatorActed) -> str | None:
        why = admit(self.authority, position, acted, appended_at, self.signatures)
        if why is not None:
            return f"event {position}: {acted.operator}'s signed action has no authority: {why}"
        if self.authority.ledger != self.origin:
            return (
                f"event {position}: the first owner registered itself for ledger "
                f"{self.authority.ledger!r}, not for this one ({self.origin})"
            )
        action = acted.action
        if isinstance(action, ApprovePublication) and not self.sealed(action.position):
            return f"event {position}: approval of {action.position}, no checkpoint's size"
        return None


def decision_problems(
    rows: Iterable[tuple[int, bytes]], origin: str, sealed: Callable[[int], bool]
) -> tuple[int, list[tuple[int, str]]]:
    """The actions checked, and each (position, reason) without authority, of the rows (position
    and canonical bytes of every event of `CHECKED_TYPES`, in position order)."""
    check = Decisions(origin, sealed)
    problems = []
    for position, canonical in rows:
        envelope = codec.decode(canonical)
        if reason := check.problem(position, envelope.recorded_at, envelope.event):
            problems.append((position, reason))
    return check.checked, problems
