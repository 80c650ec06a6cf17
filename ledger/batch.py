"""A batch of events on top of a checkpoint: its rows, Merkle nodes and signed checkpoint on
demand, rebuilt on a newer head when another writer got there first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ledger.codec import sha256
from ledger.merkle import extend, leaf_hash
from ledger.sealing import Checkpoint, Sealer

KEEP_FROM_LEVEL = 4
"""Merkle nodes are stored from 16-leaf subtrees up; smaller ones are hashed from the leaves."""


class Entry(NamedTuple):
    """An event to append."""

    stream: str
    version: int
    type: str
    canonical: bytes


class StoredRow(NamedTuple):
    """A stored event, as its columns hold it."""

    position: int
    stream: str
    version: int
    type: str
    canonical: bytes
    hash: bytes


NodeRow = tuple[int, int, bytes]
"""A stored Merkle node: level, index, hash."""


class Batch:
    def __init__(self, head: Checkpoint, entries: Sequence[Entry], sealer: Sealer) -> None:
        if not entries:
            raise ValueError("nothing to append")
        self.head, self.entries, self.sealer = head, entries, sealer
        self._sealed: tuple[list[NodeRow], Checkpoint] | None = None

    def sealed(self) -> tuple[list[NodeRow], Checkpoint]:
        """The completed Merkle nodes and the signed checkpoint, computed once."""
        if self._sealed is None:
            leaves = [leaf_hash(e.canonical) for e in self.entries]
            start = self.head.size
            size, frontier, nodes = extend(
                start, self.head.frontier_hashes(), leaves, KEEP_FROM_LEVEL
            )
            self._sealed = nodes, self.sealer.seal(size, frontier, previous=start)
        return self._sealed

    def rows(self) -> list[StoredRow]:
        """The batch's events as stored, each with its position and SHA-256."""
        first = self.head.size + 1
        return [StoredRow(first + i, *e, sha256(e.canonical)) for i, e in enumerate(self.entries)]

    def rebased(self, head: Checkpoint) -> Batch:
        return Batch(head, self.entries, self.sealer)
