"""The ledger as the rest of the system sees it: append domain events, read them back in
position order, and prove what the signed checkpoints say."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import msgspec

from domain.errors import IntegrityFailure, NotFound
from domain.events import DomainEvent, require_utc
from ledger import codec
from ledger.batch import KEEP_FROM_LEVEL, Entry, StoredRow
from ledger.heads_map import Head
from ledger.held_tree import HeldTree
from ledger.merkle import (
    Range,
    consistency_plan,
    inclusion_plan,
    leaf_hash,
    perfect_ranges,
    root_from_frontier,
    subtree_level,
    tree_root,
)
from ledger.sealing import Checkpoint
from ledger.store import LedgerRecorder, stored_row
from ledger.tiles import Tile

PAGE = 10_000
R = TypeVar("R", bound=Sequence[Any])


def prefetched_pages(
    select: Callable[[int, int | None, int], list[R]], after: int, upto: int | None
) -> Generator[list[R], None, None]:
    """Pages of `select`'s rows after `after` up to `upto`; past the first, each page is read
    on a worker thread while the caller works through the one before (the database's work
    overlaps ours)."""
    page = select(after, upto, PAGE)
    if len(page) < PAGE:
        yield page
        return
    with ThreadPoolExecutor(1, thread_name_prefix="ledger-pages") as reader:
        while len(page) == PAGE:
            following = reader.submit(select, page[-1][0], upto, PAGE)
            yield page
            page = following.result()
    yield page


class LedgerIntegrityError(IntegrityFailure):
    """The stored ledger contradicts itself (a missing node or event)."""


class NewEvent(NamedTuple):
    """An event to append at `version` of its stream (the stream's next version)."""

    event: DomainEvent
    version: int


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A domain event as the ledger holds it."""

    position: int
    stream: str
    version: int
    recorded_at: datetime
    hash: bytes
    event: DomainEvent


class InclusionProof(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    size: int
    leaf_hash: str
    path: list[str]


class ConsistencyProof(msgspec.Struct, frozen=True, kw_only=True):
    first: int
    second: int
    path: list[str]


class Ledger:
    def __init__(self, recorder: LedgerRecorder, clock: Callable[[], datetime]) -> None:
        self.recorder = recorder
        self.clock = clock
        self._size_seen = 0
        """The largest size read so far: the ledger only grows, so a tree it held, it holds."""
        self._held_tree: HeldTree | None = None
        """The tree held in memory, once `hold_tree` is called (a server's)."""
        self._holding = threading.Lock()
        self._refused: Checkpoint | None = None
        """The checkpoint whose root the events were last found not to give."""

    def close(self) -> None:
        """Release the database connections."""
        self.recorder.close()

    # --- writing ---

    @property
    def writes(self) -> bool:
        """Whether this process may append (and store read models): it holds the signing key;
        a reader opened with the public key alone only reads (docs/scale.md)."""
        return self.recorder.sealer.signs

    @property
    def origin(self) -> str:
        """The ledger's checkpoint origin (the first line of its checkpoints): its identity."""
        return self.recorder.sealer.verifier.name

    def append(self, new_events: Sequence[NewEvent], after: int | None = None) -> Checkpoint:
        """Append the events as one batch: all are recorded, with a checkpoint, or none; with
        `after`, right after that position or not at all (`ledger.store.HeadMoved`)."""
        return self.recorder.append(self._entries(new_events, self.clock()), after)

    def append_batches(self, batches: Iterable[Sequence[NewEvent]]) -> Checkpoint:
        """Append batches in order, each atomically with its own checkpoint; bulk ingest
        prepares one batch while the database commits the one before."""
        recorded_at = self.clock()
        return self.recorder.append_batches(self._entries(b, recorded_at) for b in batches)

    @staticmethod
    def _entries(new_events: Sequence[NewEvent], recorded_at: datetime) -> list[Entry]:
        require_utc("Ledger", "clock", recorded_at)
        entries = []
        for event, version in new_events:
            stream = event.stream
            envelope = codec.Envelope(
                event=event, recorded_at=recorded_at, stream=stream, version=version
            )
            entries.append(Entry(stream, version, codec.event_type(event), codec.encode(envelope)))
        return entries

    # --- reading ---

    def size(self) -> int:
        size = self.checkpoint().size
        self._size_seen = max(self._size_seen, size)
        return size

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """Stored events after `after` up to `upto`, streamed page by page."""
        for page in prefetched_pages(self.recorder.select_rows, after, upto):
            yield from page

    def events(self, after: int = 0, upto: int | None = None) -> Iterator[RecordedEvent]:
        """The events after `after` up to `upto`, each envelope decoded once, its stream,
        version and hash taken from the row's columns as the driver returns them."""
        for page in prefetched_pages(self.recorder.select_tuples, after, upto):
            for row in page:
                position, stream, version, _, canonical, hash_ = row
                if type(hash_) is not bytes:  # a column rewritten as another type
                    hash_ = stored_row(row).hash
                body = codec.decode_body(canonical)
                yield RecordedEvent(
                    position=position,
                    stream=stream,
                    version=version,
                    recorded_at=body.recorded_at,
                    hash=hash_,
                    event=body.event,
                )

    def events_of(self, types: Iterable[str], after: int, upto: int) -> list[RecordedEvent]:
        """The events of these types after `after` up to `upto`; the others' rows are never
        decoded (a reader that needs a few kinds of fact past where its state is)."""
        rows = self.recorder.select_typed(types, after, upto)
        return [_decoded(p, canonical, codec.sha256(canonical)) for p, canonical in rows]

    def stream(self, stream: str) -> list[RecordedEvent]:
        return [_recorded(row) for row in self.recorder.select_stream(stream)]

    def next_versions(self, events: Iterable[DomainEvent]) -> list[NewEvent]:
        """Each event at the next version of its stream, after the stored ones and the ones
        before it here: what appending them in this order needs (one query per 500 streams)."""
        pending = list(events)
        last = self.recorder.stream_versions(e.stream for e in pending)
        placed = []
        for event in pending:
            last[event.stream] = last.get(event.stream, 0) + 1
            placed.append(NewEvent(event, last[event.stream]))
        return placed

    def stream_heads(self, size: int, after: int = 0) -> list[Head]:
        """Every stream's head as of the first `size` events, in the order of their names (the
        leaves of `ledger.heads_map`'s map): of the streams with events after `after`."""
        return sorted(Head(*row) for row in self.recorder.select_stream_heads(size, after))

    def checkpoint(self, size: int | None = None) -> Checkpoint:
        checkpoint = self.recorder.checkpoint(size)
        if checkpoint is None:
            what = (
                "the ledger has no checkpoint" if size is None else f"no checkpoint of size {size}"
            )
            raise NotFound(what)
        return checkpoint

    # --- proofs ---

    def inclusion_proof(self, position: int, size: int | None = None) -> InclusionProof:
        """RFC 9162 2.1.3.1: the audit path of the event at `position` in the tree of `size`."""
        size = self._tree_size(size)
        if not 1 <= position <= size:
            raise NotFound(f"position {position} is not in the tree of size {size}")
        plan = inclusion_plan(position - 1, size)
        hashes = self._range_hashes([(position - 1, position), *plan])
        return InclusionProof(
            position=position,
            size=size,
            leaf_hash=hashes[0].hex(),
            path=[h.hex() for h in hashes[1:]],
        )

    def consistency_proof(self, first: int, second: int) -> ConsistencyProof:
        """RFC 9162 2.1.4.1: the proof that the tree of `second` extends the tree of `first`."""
        self._tree_size(second)
        if not 0 < first <= second:
            raise NotFound(f"no consistency proof from size {first} to size {second}")
        path = [h.hex() for h in self._range_hashes(consistency_plan(first, second))]
        return ConsistencyProof(first=first, second=second, path=path)

    def tile(self, tile: Tile) -> bytes:
        """tlog-tiles: the tile's hashes, concatenated; none of a tree past the ledger's end."""
        if tile.leaves > self.size():
            raise NotFound(f"tile {tile.path} is not in the tree of size {self.size()}")
        last = tile.first + tile.width - 1
        if tile.tree_level >= KEEP_FROM_LEVEL:
            nodes = self.recorder.select_nodes(tile.tree_level, tile.first, last)
            if len(nodes) != tile.width:
                raise LedgerIntegrityError(f"Merkle nodes of tile {tile.path} are missing")
            return b"".join(node for _, _, node in nodes)
        _, leaves = self._merkle_inputs([], [(tile.first, last + 1)])
        return b"".join(leaves[i] for i in range(tile.first, last + 1))

    def root(self, size: int) -> bytes:
        """MTH of the first `size` events, from O(log n) stored hashes."""
        return self._range_hashes([(0, size)])[0] if size else root_from_frontier([])

    def _tree_size(self, size: int | None) -> int:
        if size is not None and 0 < size <= self._size_seen:
            return size
        latest = self.size()
        if size is None:
            return latest
        if not 0 < size <= latest:
            raise NotFound(f"tree size {size} is outside 1..{latest}")
        return size

    def hold_tree(self) -> None:
        """From now on, make proofs and roots from the tree held in memory (`HeldTree`), grown
        from the events as far as each asks and checked against the signed checkpoint it is
        grown to, instead of asking the database for stored nodes and leaves each time: a
        server's, whose proofs the public asks (docs/scale.md). Grown here to the head."""
        if self._held_tree is None:
            self._held_tree = HeldTree()
        self._held_to(self.size())

    def _held_to(self, size: int) -> HeldTree:
        """The held tree, grown to the latest checkpoint when it vouches for fewer than `size`
        leaves: what it grew by is vouched for once the tree gives the root that checkpoint's
        note signs; else the tree is dropped (the next growth starts afresh, unless the same
        checkpoint is the latest still: it is refused at once) and the ledger contradicts
        itself. Only a growth takes the lock."""
        held = self._held_tree
        assert held is not None
        if held.size >= size:
            return held
        with self._holding:
            held = self._held_tree
            assert held is not None
            if held.size >= size:
                return held
            checkpoint = self.checkpoint()
            if size > checkpoint.size:
                raise NotFound(
                    f"tree size {size} is past the latest checkpoint's, {checkpoint.size}"
                )
            unsigned = self.recorder.sealer.check_note(checkpoint)
            if unsigned or checkpoint == self._refused:
                raise LedgerIntegrityError(unsigned or self._not_the_root(checkpoint))
            grown = held.grow(
                leaf_hash(row.canonical) for row in self.rows(held.size, checkpoint.size)
            )
            if grown != checkpoint.size or held.range_hash(0, grown) != checkpoint.root:
                self._held_tree, self._refused = HeldTree(), checkpoint
                raise LedgerIntegrityError(self._not_the_root(checkpoint))
            held.size = grown
            return held

    @staticmethod
    def _not_the_root(checkpoint: Checkpoint) -> str:
        return f"the events up to {checkpoint.size} do not give the root of its signed checkpoint"

    def _range_hashes(self, ranges: Sequence[Range]) -> list[bytes]:
        """MTH of each range: from the held tree (`hold_tree`), else reading each perfect
        subtree once: a stored node from KEEP_FROM_LEVEL up, the leaves themselves below, all
        in one read."""
        if self._held_tree is not None:
            held = self._held_to(max((end for _, end in ranges), default=0))
            return [held.range_hash(start, end) for start, end in ranges]
        split = [perfect_ranges(*r) for r in ranges]
        levels = {p: subtree_level(*p) for perfect in split for p in perfect}
        stored = {
            p: (level, p[0] >> level) for p, level in levels.items() if level >= KEEP_FROM_LEVEL
        }
        hashed = sorted(p for p, level in levels.items() if level < KEEP_FROM_LEVEL)
        nodes, leaves = self._merkle_inputs(list(stored.values()), hashed)
        known: dict[Range, bytes] = {}
        for p, key in stored.items():
            if key not in nodes:
                raise LedgerIntegrityError(f"Merkle node {key} is missing")
            known[p] = nodes[key]
        for a, b in hashed:
            known[a, b] = tree_root([leaves[i] for i in range(a, b)])
        return [root_from_frontier([known[p] for p in perfect]) for perfect in split]

    def _merkle_inputs(
        self, nodes: Sequence[tuple[int, int]], ranges: Sequence[Range]
    ) -> tuple[dict[tuple[int, int], bytes], dict[int, bytes]]:
        """The stored nodes at these (level, index) keys, and the leaf hashes of `ranges` (in
        order) by leaf index, ranges at most a stored node's width apart read as one (a
        proof's siblings below the stored levels)."""
        clusters: list[list[int]] = []
        for a, b in ranges:
            if clusters and a - clusters[-1][1] <= 1 << KEEP_FROM_LEVEL:
                clusters[-1][1] = max(clusters[-1][1], b)
            else:
                clusters.append([a, b])
        found, events = self.recorder.merkle_inputs(nodes, [(a, b) for a, b in clusters])
        leaves = {position - 1: leaf_hash(canonical) for position, canonical in events}
        if len(leaves) != sum(b - a for a, b in clusters):
            a, b = next((a, b) for a, b in clusters if any(i not in leaves for i in range(a, b)))
            raise LedgerIntegrityError(f"events {a + 1}..{b} are not all there")
        return found, leaves


def _recorded(row: StoredRow) -> RecordedEvent:
    return _decoded(row.position, row.canonical, row.hash)


def _decoded(position: int, canonical: bytes, hash_: bytes) -> RecordedEvent:
    envelope = codec.decode(canonical)
    return RecordedEvent(
        position=position,
        stream=envelope.stream,
        version=envelope.version,
        recorded_at=envelope.recorded_at,
        hash=hash_,
        event=envelope.event,
    )
