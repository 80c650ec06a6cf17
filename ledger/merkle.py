"""Merkle tree hashing and proofs exactly as RFC 9162 section 2.1 defines them.

Pure bytes in, bytes out; standard library only, so the offline verifier can carry this
module alone. Proof *planning* (which subtrees a proof needs) never touches storage; the
ledger looks the planned subtree hashes up itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

Range = tuple[int, int]
"""A half-open range of leaf indexes [start, end): one node of the RFC 9162 tree."""

EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof does not verify, or was asked for outside the tree."""


def leaf_hash(entry: bytes) -> bytes:
    """RFC 9162 2.1.1: MTH({d(0)}) = SHA-256(0x00 || d(0))."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 2.1.1: MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split_point(n: int) -> int:
    """RFC 9162 2.1.1: k, the largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


# --- the compact range: what an append-only tree keeps to grow without a rebuild ---


def frontier_levels(size: int) -> list[int]:
    """Levels of the perfect subtrees that make up a tree of `size` leaves, largest first."""
    return [level for level in range(size.bit_length() - 1, -1, -1) if size >> level & 1]


def extend(
    size: int, frontier: Sequence[bytes], leaf_hashes: Iterable[bytes], keep_from_level: int
) -> tuple[int, list[bytes], list[tuple[int, int, bytes]]]:
    """Append leaves to a tree known only by its frontier (one root per set bit of `size`).

    Returns the new size, the new frontier and every perfect subtree completed on the way at
    `keep_from_level` or above, as (level, index, hash): index i at level l covers the leaves
    [i * 2**l, (i + 1) * 2**l).

    Built a level at a time, pairing the whole row at once: the same hashes as leaf by leaf,
    with the interpreter's work per row rather than per node.
    """
    waiting = dict(zip(frontier_levels(size), frontier, strict=True))
    row, first, level = list(leaf_hashes), size, 0
    size += len(row)
    completed: list[tuple[int, int, bytes]] = []
    while row:
        if first & 1:  # the row's first node is the right sibling of a waiting root
            row.insert(0, waiting.pop(level))
            first -= 1
        if len(row) & 1:
            waiting[level] = row.pop()
        row = _paired(row)
        first, level = first >> 1, level + 1
        if level >= keep_from_level:
            completed += ((level, first + i, node) for i, node in enumerate(row))
    return size, [waiting[level] for level in sorted(waiting, reverse=True)], completed


def root_from_frontier(frontier: Sequence[bytes]) -> bytes:
    """The root of the tree whose perfect subtrees, largest first, are `frontier`."""
    if not frontier:
        return EMPTY_ROOT
    root = frontier[-1]
    for subtree in reversed(frontier[:-1]):
        root = node_hash(subtree, root)
    return root


def tree_root(leaf_hashes: Iterable[bytes]) -> bytes:
    """MTH of the tree with these leaf hashes, a level at a time: a row's odd last node is
    carried up as it is, which gives RFC 9162's split at the largest power of two."""
    row = list(leaf_hashes)
    while len(row) > 1:
        row = [*_paired(row), row[-1]] if len(row) & 1 else _paired(row)
    return row[0] if row else EMPTY_ROOT


def _paired(row: Sequence[bytes]) -> list[bytes]:
    """The parents of a row's nodes taken two by two (an odd last one left out): node_hash,
    inline, with the interpreter's work per row rather than per node."""
    sha256 = hashlib.sha256
    return [sha256(b"\x01" + row[i - 1] + row[i]).digest() for i in range(1, len(row), 2)]


def subtree_level(start: int, end: int) -> int:
    """The level of the perfect subtree over leaves [start, end): log2 of its width."""
    return (end - start).bit_length() - 1


def perfect_ranges(start: int, end: int) -> list[Range]:
    """Split a tree node's range into aligned perfect subtrees, largest first."""
    ranges = []
    while start < end:
        width = 1 << ((end - start).bit_length() - 1)
        ranges.append((start, start + width))
        start += width
    return ranges


def range_hash(start: int, end: int, perfect_hash: Callable[[int, int], bytes]) -> bytes:
    """MTH(D[start:end]) of a node of the tree, from the hashes of its perfect subtrees."""
    return root_from_frontier([perfect_hash(a, b) for a, b in perfect_ranges(start, end)])


# --- proof planning (RFC 9162 2.1.3.1 and 2.1.4.1, unrolled) ---


def inclusion_plan(index: int, size: int) -> list[Range]:
    """The subtrees whose hashes make PATH(index, D[size]), in proof order."""
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is outside a tree of size {size}")
    plan: list[Range] = []
    start, end = 0, size
    while end - start > 1:
        k = split_point(end - start)
        if index < start + k:
            plan.append((start + k, end))
            end = start + k
        else:
            plan.append((start, start + k))
            start += k
    return plan[::-1]


def consistency_plan(first: int, second: int) -> list[Range]:
    """The subtrees whose hashes make PROOF(first, D[second]), in proof order."""
    if not 0 < first <= second:
        raise ProofError(f"no consistency proof from size {first} to size {second}")
    plan: list[Range] = []
    start, end, m, whole = 0, second, first, True
    while m != end - start:
        k = split_point(end - start)
        if m <= k:
            plan.append((start + k, end))
            end = start + k
        else:
            plan.append((start, start + k))
            start, m, whole = start + k, m - k, False
    if not whole:
        plan.append((start, end))
    return plan[::-1]


# --- verification (RFC 9162 2.1.3.2 and 2.1.4.2, step by step) ---


def _lsb(n: int) -> int:
    return n & 1


def root_from_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes:
    """RFC 9162 2.1.3.2: the root that an inclusion path leads to from a leaf hash."""
    if index >= size:
        raise ProofError(f"leaf index {index} is not below tree size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise ProofError("inclusion path is longer than the tree is deep")
        if _lsb(fn) or fn == sn:
            r = node_hash(p, r)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("inclusion path is shorter than the tree is deep")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, path: Sequence[bytes], root: bytes
) -> None:
    """Raise ProofError unless `path` proves leaf hash `leaf` at `index` in the tree `root`."""
    if root_from_inclusion(index, size, leaf, path) != root:
        raise ProofError(f"inclusion path of leaf {index} does not lead to the root of size {size}")


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, path: Sequence[bytes]
) -> None:
    """RFC 9162 2.1.4.2: raise ProofError unless `path` proves tree `second` extends `first`."""
    if not 0 < first <= second:
        raise ProofError(f"no consistency proof from size {first} to size {second}")
    if first == second:
        # The proof of a tree against itself is empty (2.1.4.1); the roots must agree.
        if path or first_root != second_root:
            raise ProofError(f"tree of size {first} has two different roots")
        return
    if not path:
        raise ProofError("empty consistency path")
    nodes = list(path)
    if first & (first - 1) == 0:
        nodes.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while _lsb(fn):
        fn, sn = fn >> 1, sn >> 1
    fr = sr = nodes[0]
    for c in nodes[1:]:
        if sn == 0:
            raise ProofError("consistency path is longer than the tree is deep")
        if _lsb(fn) or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if fr != first_root or sr != second_root or sn != 0:
        raise ProofError(f"consistency path does not join size {first} to size {second}")
