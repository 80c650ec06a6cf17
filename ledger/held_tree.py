"""A ledger's Merkle tree held in memory by a server, so that a proof reads no stored node or
leaf: the leaf hashes and the nodes of complete subtrees of 16 leaves and more, 32 bytes each,
in one `bytearray` per level (about 36 bytes an event in all: 32 MB at 900,000 events, a few
percent of the public state a server holds beside it). They are hashed from the events
themselves, and the tree they make is checked against the root the note of the checkpoint it is
held up to signs (docs/scale.md)."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.batch import KEEP_FROM_LEVEL
from ledger.merkle import node_hash, range_hash, subtree_level, tree_root

HASH = 32


class HeldTree:
    """The leaves of a tree and the nodes of its complete subtrees from `KEEP_FROM_LEVEL` up,
    of which the first `size` leaves are vouched for (checked against a signed root). Grown by
    one caller at a time; read by any number meanwhile, each reading only below the `size` it
    saw (a complete subtree's node never changes)."""

    def __init__(self) -> None:
        self.size = 0
        self._levels: dict[int, bytearray] = {0: bytearray()}

    def grow(self, leaf_hashes: Iterable[bytes]) -> int:
        """The next leaves appended, and the nodes they complete made; how many leaves are
        held, which the caller makes the `size` once it has checked them. What a growth that
        failed half way left past `size` is dropped first."""
        for level, hashes in self._levels.items():
            del hashes[(self.size >> level) * HASH :]
        leaves = self._levels[0]
        for leaf in leaf_hashes:
            leaves += leaf
        held = len(leaves) // HASH
        level = KEEP_FROM_LEVEL
        while held >> level:
            nodes = self._levels.setdefault(level, bytearray())
            for index in range(len(nodes) // HASH, held >> level):
                nodes += self._made(level, index)
            level += 1
        return held

    def _made(self, level: int, index: int) -> bytes:
        if level == KEEP_FROM_LEVEL:
            return tree_root(self._leaves(index << level, (index + 1) << level))
        below = self._levels[level - 1]
        return node_hash(self._node(below, 2 * index), self._node(below, 2 * index + 1))

    @staticmethod
    def _node(level: bytearray, index: int) -> bytes:
        return bytes(level[index * HASH : (index + 1) * HASH])

    def _leaves(self, start: int, end: int) -> list[bytes]:
        return [self._node(self._levels[0], i) for i in range(start, end)]

    def perfect_hash(self, start: int, end: int) -> bytes:
        """The hash of the perfect subtree over leaves [start, end), of those held."""
        level = subtree_level(start, end)
        if level == 0:
            return self._node(self._levels[0], start)
        if level >= KEEP_FROM_LEVEL:
            return self._node(self._levels[level], start >> level)
        return tree_root(self._leaves(start, end))

    def range_hash(self, start: int, end: int) -> bytes:
        """MTH of the leaves [start, end), of those held."""
        return range_hash(start, end, self.perfect_hash)
