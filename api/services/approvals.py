"""What is approved for the public as of the ledger's head (methodology section 1), for a public
reader: folded from the signed actions and the authority facts alone, their rows picked by type
and the others never decoded, so that the public state itself need be folded no further than
the approved position (docs/scale.md, "The public read path")."""

from __future__ import annotations

import threading
from collections.abc import Callable

from domain.events import OperatorActed, OperatorRegistered, OperatorRevoked, PublicationApproved
from domain.state.authority import fold_authority
from domain.state.records import Authority
from ledger.actions import SIGNATURES
from ledger.ledger import Ledger

AUTHORITY_TYPES = frozenset(
    str(fact.__struct_config__.tag)
    for fact in (OperatorActed, PublicationApproved, OperatorRegistered, OperatorRevoked)
)
"""The events `fold_authority` applies: every other leaves who may decide as it was."""

Start = Callable[[], tuple[int, Authority]]
"""A position and a copy of the authority folded up to it, to fold on from."""


class HeadApprovals:
    """The approved positions as of the head: from a state's authority (`start`), folded on
    over the authority events since with the fold every reader of a decision uses."""

    def __init__(self, ledger: Ledger, start: Start) -> None:
        self.ledger = ledger
        self._start = start
        self._lock = threading.Lock()
        self._folded: tuple[int, Authority] | None = None

    def positions(self) -> list[int]:
        """The approved positions, in order, as of the ledger's head. The database is read
        outside the lock, so that a read hung on it holds up no other; what was read is folded
        under the lock from wherever the fold is by then."""
        head = self.ledger.size()
        while True:
            at = self._started()
            read = self.ledger.events_of(AUTHORITY_TYPES, at, head) if head > at else []
            with self._lock:
                if self._folded is None or self._folded[0] < at:
                    continue  # a fold failed meanwhile and started afresh below `at`
                now, authority = self._folded
                if head > now:
                    self._folded = None  # until the fold is whole
                    for recorded in read:
                        if recorded.position > now:
                            fold_authority(
                                authority,
                                recorded.position,
                                recorded.event,
                                recorded.recorded_at,
                                SIGNATURES,
                            )
                    self._folded = head, authority
                return [approval.position for approval in authority.approvals]

    def _started(self) -> int:
        """The position the fold is at, started (outside the lock: it reads the database) when
        there is none."""
        with self._lock:
            if self._folded is not None:
                return self._folded[0]
        started = self._start()
        with self._lock:
            self._folded = self._folded or started
            return self._folded[0]
