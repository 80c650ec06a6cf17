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


def position_as_of(size: int, as_of: int | None) -> int:
    """The position a read of a ledger of `size` events answers as of: the latest by default,
    never past the end."""
    if as_of is None:
        return size
    if not 0 <= as_of <= size:
        raise NotFound(f"position {as_of} is outside the ledger (0..{size})")
    return as_of


def published_as_of(as_of: int | None, published: int) -> int:
    """A public read's position: the latest approved by default, never later (methodology
    section 1: nothing is public before a person approves it)."""
    if as_of is None:
        return published
    if as_of > published:
        raise NotFound(f"position {as_of} is not published (the public sees up to {published})")
    return as_of


_SEEN = object()
"""The key a reader's `seen` state is cached under, beside its views."""


class ProjectionReader(Generic[M]):
    """The latest state is kept in memory and folded on as events arrive (the first read
    catches the stored model up and stores it), and so is the state at the earlier position
    last asked for (the published one, usually), folded on as that position moves; views of
    both are cached per position.

    Both states are folded on in place, so a reader shared between threads (the server's) is
    read only through `answer` and `look`, which run while the state they are given cannot
    change; what they return must hold nothing of it that a later event changes."""

    def __init__(
        self, ledger: Ledger, projection: Projection[M], seen: Callable[[M], M] | None = None
    ) -> None:
        """`seen`: what the views see of a state (all of it by default; the public part for a
        public reader), worked out once per position."""
        self.ledger = ledger
        self.projection = projection
        self.read_model = ReadModel(ledger, projection)
        self._seen = seen
        self._lock = threading.Lock()
        self._latest: tuple[int, M] | None = None
        self._views: dict[Hashable, object] = {}
        self._views_at = -1
        self._pinned_lock = threading.Lock()
        self._pinned: tuple[int, M] | None = None
        self._pinned_views: dict[Hashable, object] = {}

    def answer(self, key: Hashable, view: View[M, T], as_of: int | None = None) -> T:
        """`view` of the state as of `as_of` (the latest by default), as `seen` shows it,
        cached per position; `key` names the view."""

        def cached(state: M, at: int, views: dict[Hashable, object]) -> T:
            if key not in views:
                views[key] = view(self._seen_in(state, views), at)
            return views[key]  # type: ignore[return-value]

        return self._at(as_of, cached)

    def look(self, use: View[M, T], as_of: int | None = None) -> T:
        """`use` of the whole state as of `as_of` (the latest by default), uncached: a check
        or a decision that must see the state as it is while it runs."""
        return self._at(as_of, lambda state, at, _: use(state, at))

    def latest(self) -> M:
        """The state at the head, for a caller alone with this reader (one command's pass):
        later reads fold on it in place."""
        return self.look(lambda state, _: state)

    def _seen_in(self, state: M, views: dict[Hashable, object]) -> M:
        if self._seen is None:
            return state
        if _SEEN not in views:
            views[_SEEN] = self._seen(state)
        return views[_SEEN]  # type: ignore[return-value]

    def _at(self, as_of: int | None, use: Callable[[M, int, dict[Hashable, object]], T]) -> T:
        """`use` of the state at a position and of the views cached there, under the lock of
        the state it is (the latest or the pinned)."""
        head = self.ledger.size()
        position = position_as_of(head, as_of)
        with self._lock:
            latest, state = self._caught_up(head)
            if position == latest:
                if self._views_at != latest:
                    self._views, self._views_at = {}, latest
                return use(state, latest, self._views)
        with self._pinned_lock:
            return use(self._pinned_at(position), position, self._pinned_views)

    # Each read asks the ledger's size before it takes a lock: with the database away, every
    # read fails on its own at once instead of queueing behind the one that holds the lock.

    def _caught_up(self, head: int) -> tuple[int, M]:
        if self._latest is None:
            self._latest = self.read_model.catch_up()
        position, state = self._latest
        if head > position:
            self._latest = None  # until the fold is whole (see _folded_on)
            self._latest = (head, self._folded_on(state, position, head))
        return self._latest

    def _folded_on(self, state: M, after: int, upto: int) -> M:
        """`state` with the events after `after` up to `upto` folded in, in place. The caller
        forgets the kept state first: if reading the events fails half way (the database gone),
        that state holds part of them and must not be folded on again; the next read starts
        afresh from the stored model."""
        return fold(self.projection, self.ledger.events(after, upto), state)

    def _pinned_at(self, position: int) -> M:
        """The state at an earlier position: folded on from the one kept when it is later,
        afresh when it is earlier."""
        if self._pinned is not None and self._pinned[0] == position:
            return self._pinned[1]
        if self._pinned is not None and self._pinned[0] < position:
            at, state = self._pinned
            self._pinned = None  # until the fold is whole (see _folded_on)
            state = self._folded_on(state, at, position)
        else:
            state = self.read_model.as_of(position)
        self._pinned, self._pinned_views = (position, state), {}
        return state
