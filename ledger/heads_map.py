"""The map of every stream's head: a commitment that lets a part of the ledger prove it is all
of some streams (ARCHITECTURE.md, "Authority": bundles that prove completeness).

Each stream with events is one leaf, in the order of its name: the RFC 9162 leaf hash of its
name (length first), its last version and the hash of that version's event. The map's root is
the RFC 9162 tree root over the leaves. A *selection* is one stream or, with a name ending in
":", every stream under that prefix; its streams sit side by side in the map, so the leaves from
the one before them to the one after them, with the roots of the subtrees outside that range,
prove the selection has those streams and no other, each with nothing past its head.

Standard library and `ledger.merkle` only: the offline verifier carries this module.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ledger.merkle import ProofError, leaf_hash, node_hash, split_point, tree_root


class Head(NamedTuple):
    """A stream's last version and the hash of that version's event."""

    stream: str
    version: int
    hash: bytes


def head_leaf(head: Head) -> bytes:
    name = head.stream.encode()
    return leaf_hash(
        len(name).to_bytes(4, "big") + name + head.version.to_bytes(8, "big") + head.hash
    )


def map_root(heads: Sequence[Head]) -> bytes:
    """The map's root over `heads`, sorted by stream name."""
    return tree_root(head_leaf(h) for h in heads)


def selects(selection: str, stream: str) -> bool:
    """Whether `stream` is in `selection`: every stream under a prefix ending in ":", else the
    one stream of that name."""
    return stream.startswith(selection) if selection.endswith(":") else stream == selection


def covering(heads: Sequence[Head], selection: str) -> tuple[int, int]:
    """[first, end): the selected streams of the sorted `heads`, and one neighbour on each side
    where there is one."""
    first = end = bisect_left(heads, selection, key=lambda h: h.stream)
    while end < len(heads) and selects(selection, heads[end].stream):
        end += 1
    return max(first - 1, 0), min(end + 1, len(heads))


def range_proof(heads: Sequence[Head], first: int, end: int) -> list[bytes]:
    """The roots of the subtrees outside [first, end), in the order `range_root` takes them."""
    leaves = [head_leaf(h) for h in heads]
    proof: list[bytes] = []

    def walk(low: int, high: int) -> None:
        if high <= first or low >= end:
            proof.append(tree_root(leaves[low:high]))
        elif high - low > 1:
            middle = low + split_point(high - low)
            walk(low, middle)
            walk(middle, high)

    if leaves:
        walk(0, len(leaves))
    return proof


def range_root(size: int, first: int, leaves: Sequence[bytes], proof: Sequence[bytes]) -> bytes:
    """The root of a tree of `size` leaves whose leaves from `first` on are `leaves` and whose
    other subtrees' roots are `proof`."""
    end = first + len(leaves)
    if size == 0 and not leaves and not proof:
        return tree_root([])
    if not (0 <= first < end <= size):
        raise ProofError(f"leaves {first}..{end} are not a range of a map of {size} streams")
    outside: Iterator[bytes] = iter(proof)

    def walk(low: int, high: int) -> bytes:
        if high <= first or low >= end:
            node = next(outside, None)
            if node is None:
                raise ProofError("the range proof is too short")
            return node
        if high - low == 1:
            return leaves[low - first]
        middle = low + split_point(high - low)
        return node_hash(walk(low, middle), walk(middle, high))

    root = walk(0, size)
    if next(outside, None) is not None:
        raise ProofError("the range proof is too long")
    return root


class Span(NamedTuple):
    """A range of the map's leaves from `first` on, and the roots of the subtrees outside it."""

    first: int
    heads: Sequence[Head]
    proof: Sequence[bytes]


def span(heads: Sequence[Head], selection: str) -> Span:
    """The range that proves `selection` in the map of the sorted `heads`."""
    first, end = covering(heads, selection)
    return Span(first, heads[first:end], range_proof(heads, first, end))


def selected(selection: str, given: Span, size: int, root: bytes) -> list[Head]:
    """The heads of every stream of `selection` in the map of `size` streams with `root`, from a
    range of its leaves with a neighbour on each side where the map has one; ProofError when
    they do not prove it."""
    try:
        return _selected(selection, given, size, root)
    except ProofError as e:
        raise ProofError(f"streams {selection!r}: {e}") from e


def _selected(selection: str, given: Span, size: int, root: bytes) -> list[Head]:
    first, heads, proof = given
    if range_root(size, first, [head_leaf(h) for h in heads], proof) != root:
        raise ProofError("their heads do not lead to the committed root")
    names = [h.stream for h in heads]
    if names != sorted(set(names)):
        raise ProofError("they are not in order, each once")
    inner = list(heads)
    # A stream outside the selection that sorts before it sorts before all of it (and one after
    # it, after all of it): the range's first and last, which must be there unless the range
    # starts or ends the map.
    if inner and not selects(selection, inner[0].stream) and inner[0].stream < selection:
        inner.pop(0)
    elif first > 0:
        raise ProofError("the range does not start before them")
    if inner and not selects(selection, inner[-1].stream) and inner[-1].stream > selection:
        inner.pop()
    elif first + len(heads) < size:
        raise ProofError("the range does not end after them")
    if not all(selects(selection, h.stream) for h in inner):
        raise ProofError("the range holds other streams among them")
    return inner
