"""A projection's answers over one ledger, as of any position, with the latest state and a few
earlier ones kept."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from domain.errors import NotFound
from ledger.codec import encode_json
from ledger.ledger import Ledger
from projections.base import M, Projection, fold
from projections.runner import ReadModel

T = TypeVar("T")
View = Callable[[M, int], T]
"""A view: the folded state and the position it answers as of, to a document."""

KEPT_STATES = 4
"""How many earlier states a reader keeps besides the latest, each about as large as the latest
(docs/scale.md): the least recently read is dropped first, never the newest (a public reader's
is the published one)."""


def position_as_of(size: int, as_of: int | None) -> int:
    """The position a read of a ledger of `size` events answers as of: the latest by default,
    never past the end."""
    if as_of is None:
        return size
    if not 0 <= as_of <= size:
        raise NotFound(f"position {as_of} is outside the ledger (0..{size})")
    return as_of


_SEEN = object()
"""The key a reader's `seen` state is cached under, beside its views."""


class _Kept(Generic[M]):
    """A state kept at an earlier position, the views cached there, and the lock both are read
    under. `state` is None until it is folded; `gone` once it has been folded on to another
    position or its fold failed: whoever waited for it looks again."""

    def __init__(self, position: int) -> None:
        self.position = position
        self.state: M | None = None
        self.views: dict[Hashable, object] = {}
        self.lock = threading.Lock()
        self.gone = False


class ProjectionReader(Generic[M]):
    """The latest state is kept in memory and folded on to the position each read asks, the
    head by default (a writer's first read catches the stored model up and stores it; a
    reader's folds it on only as far as it is asked), and so are up
    to `KEPT_STATES` earlier ones,
    one per position asked (the approved positions, for a public reader); views of each are
    cached per position. A new earlier state is folded from the nearest kept one below it: on
    in place when it is the newest (the published position moving on), else from a copy, which
    leaves it kept; from the stored model or from nothing when none is below.

    States are folded on in place, so a reader shared between threads (the server's) is read
    only through `answer` and `look`, which run while the state they are given cannot change
    (under its own lock: a read of one position never waits for the fold of another); what
    they return must hold nothing of it that a later event changes."""

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
        self._kept_lock = threading.Lock()
        """Guards `_kept` alone: no other lock is taken while it is held."""
        self._kept: OrderedDict[int, _Kept[M]] = OrderedDict()
        """By position, the least recently read first."""

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

    def look_held(self, use: View[M, T]) -> T:
        """`use` of the latest state where it is (for a reader, the stored model's position at
        first), folded no further: a start that something folds on apart from the state."""
        with self._lock:
            if self._latest is None:
                self._latest = self._first(None)
            at, state = self._latest
            return use(state, at)

    def latest(self) -> M:
        """The state at the head, for a caller alone with this reader (one command's pass):
        later reads fold on it in place."""
        return self.look(lambda state, _: state)

    def kept(self) -> list[int]:
        """The earlier positions whose states are kept, the least recently read first."""
        with self._kept_lock:
            return [k.position for k in self._kept.values() if k.state is not None]

    def _seen_in(self, state: M, views: dict[Hashable, object]) -> M:
        if self._seen is None:
            return state
        if _SEEN not in views:
            views[_SEEN] = self._seen(state)
        return views[_SEEN]  # type: ignore[return-value]

    def _at(self, as_of: int | None, use: Callable[[M, int, dict[Hashable, object]], T]) -> T:
        """`use` of the state at a position and of the views cached there, under the lock of
        the state it is (the latest or a kept earlier one)."""
        head = self._head(as_of)
        position = position_as_of(head, as_of)
        with self._lock:
            latest, state = self._caught_up(position)
            if position == latest:
                if self._views_at != latest:
                    self._views, self._views_at = {}, latest
                return use(state, latest, self._views)
        while True:
            kept = self._entry(position)
            with kept.lock:
                if kept.gone:
                    continue
                if kept.state is None:
                    kept.state = self._earlier(kept)
                return use(kept.state, position, kept.views)

    # Each read asks the ledger's size before it takes a lock: with the database away, every
    # read fails on its own at once instead of queueing behind the one that holds the lock.
    # A read as of a position the latest state has reached needs not ask: the ledger only grows.
    # Locks are taken from the higher position to the lower (a kept state's, then the one it
    # is folded from), never the latest's together with a kept one's: no two reads can wait
    # for each other.

    def _head(self, as_of: int | None) -> int:
        """The ledger's size as far as a read as of `as_of` needs it: the latest state's
        position when `as_of` is not past it (a public read as of the approved position asked
        just before), else the database's answer."""
        latest = self._latest
        if as_of is not None and latest is not None and 0 <= as_of <= latest[0]:
            return latest[0]
        return self.ledger.size()

    def _caught_up(self, upto: int) -> tuple[int, M]:
        """The latest state, folded on to `upto` when it is behind it (never further: a public
        reader's goes as far as the approved position, not to the head past it)."""
        if self._latest is None:
            self._latest = self._first(upto)
        position, state = self._latest
        if upto > position:
            self._latest = None  # until the fold is whole (see _folded_on)
            self._latest = (upto, self._folded_on(state, position, upto))
        return self._latest

    def _first(self, upto: int | None) -> tuple[int, M]:
        """The first latest state: a writer's the stored model caught up to the head and stored
        again (`ReadModel.catch_up`); a reader's, which stores nothing, the stored model where it
        is when it is not past `upto` (a public reader folds it on to the approved position
        alone, never to the head past it)."""
        if self.ledger.writes:
            return self.read_model.catch_up()
        return self.read_model.stored(upto)

    def _folded_on(self, state: M, after: int, upto: int) -> M:
        """`state` with the events after `after` up to `upto` folded in, in place. The caller
        forgets the kept state first: if reading the events fails half way (the database gone),
        that state holds part of them and must not be folded on again; the next read starts
        afresh from another."""
        return fold(self.projection, self.ledger.events(after, upto), state)

    def _entry(self, position: int) -> _Kept[M]:
        """The kept state at `position`, made (not yet folded) when there is none; beyond
        `KEPT_STATES`, the least recently read other than the newest is dropped."""
        with self._kept_lock:
            kept = self._kept.get(position)
            if kept is not None:
                self._kept.move_to_end(position)
                return kept
            kept = self._kept[position] = _Kept(position)
            newest = max(self._kept)
            while len(self._kept) > KEPT_STATES:
                del self._kept[next(p for p in self._kept if p != newest)]
            return kept

    def _forget(self, kept: _Kept[M]) -> None:
        """`kept` is no longer a state to read or fold on (its holder has its lock)."""
        kept.gone = True
        with self._kept_lock:
            if self._kept.get(kept.position) is kept:
                del self._kept[kept.position]

    def _earlier(self, kept: _Kept[M]) -> M:
        """The state at `kept`'s position (its holder has its lock), folded from the nearest
        start below it; if that fails, `kept` is forgotten."""
        try:
            at, state = self._start(kept.position)
            return self._folded_on(state, at, kept.position)
        except BaseException:
            self._forget(kept)
            raise

    def _start(self, position: int) -> tuple[int, M]:
        """A state to fold on to `position` and the position it is at: the nearest kept below,
        taken when no kept state is above `position` (the newest moving on) and copied
        otherwise; the stored model when it is not past `position`; else the initial one."""
        while True:
            with self._kept_lock:
                below = [
                    k for k in self._kept.values() if k.position < position and k.state is not None
                ]
                source = max(below, key=lambda k: k.position, default=None)
                take = all(p <= position for p in self._kept)
            if source is None:
                return self.read_model.stored(upto=position)
            with source.lock:
                if source.gone or source.state is None:
                    continue  # taken, or its fold failed, meanwhile: look again
                if take:
                    state = source.state
                    source.state = None
                    self._forget(source)
                    return source.position, state
                copy = encode_json(source.state)
            return source.position, self.read_model.decoded(copy)
