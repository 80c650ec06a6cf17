"""A projection's answers over one ledger, as of any position, with the latest state kept."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from domain.errors import NotFound
from ledger.ledger import Ledger
from projections.base import M, Projection, fold
from projections.runner import ReadModel

T = TypeVar("T")
View = Callable[[M, int], T]
"""A view: the folded state and the position it answers as of, to a document."""


def position_as_of(ledger: Ledger, as_of: int | None) -> int:
    """The position a read answers as of: the latest by default, never past the end."""
    size = ledger.size()
    if as_of is None:
        return size
    if not 0 <= as_of <= size:
        raise NotFound(f"position {as_of} is outside the ledger (0..{size})")
    return as_of


class ProjectionReader(Generic[M]):
    """The latest state is kept in memory and folded on as events arrive (the first read
    catches the stored model up and stores it); views of it are cached per position. A read
    as of an earlier position folds that state afresh."""

    def __init__(self, ledger: Ledger, projection: Projection[M]) -> None:
        self.ledger = ledger
        self.projection = projection
        self.read_model = ReadModel(ledger, projection)
        self._lock = threading.Lock()
        self._latest: tuple[int, M] | None = None
        self._views: dict[Hashable, object] = {}
        self._views_at = -1

    def answer(self, key: Hashable, view: View[M, T], as_of: int | None = None) -> T:
        """`view` of the state as of `as_of` (the latest by default); `key` names the view."""
        position = position_as_of(self.ledger, as_of)
        with self._lock:
            latest, state = self._caught_up()
            if position == latest:
                if self._views_at != latest:
                    self._views, self._views_at = {}, latest
                if key not in self._views:
                    self._views[key] = view(state, latest)
                return self._views[key]  # type: ignore[return-value]
        return view(self.read_model.as_of(position), position)

    def latest(self) -> M:
        """The state at the head; callers must not change it."""
        with self._lock:
            return self._caught_up()[1]

    def _caught_up(self) -> tuple[int, M]:
        if self._latest is None:
            self._latest = self.read_model.catch_up()
        position, state = self._latest
        head = self.ledger.size()
        if head > position:
            self._latest = (head, fold(self.projection, self.ledger.events(position, head), state))
        return self._latest
