"""ledger.merkle against RFC 9162's own recursive definitions, and mutated proofs rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.merkle import (
    EMPTY_ROOT,
    ProofError,
    consistency_plan,
    extend,
    inclusion_plan,
    leaf_hash,
    range_hash,
    root_from_frontier,
    tree_root,
    verify_consistency,
    verify_inclusion,
)
from tests.ledger.rfc9162 import Tree

ENTRIES = [f"entry {i}".encode() for i in range(70)]
REFERENCE = Tree(ENTRIES)
LEAVES = [leaf_hash(e) for e in ENTRIES]


def planned(ranges: list[tuple[int, int]]) -> list[bytes]:
    return [REFERENCE.mth(a, b) for a, b in ranges]


def test_empty_tree_root_is_the_hash_of_nothing() -> None:
    assert tree_root([]) == EMPTY_ROOT == REFERENCE.mth(0, 0)


@pytest.mark.parametrize("size", range(1, 71))
def test_incremental_root_equals_mth(size: int) -> None:
    assert tree_root(LEAVES[:size]) == REFERENCE.mth(0, size)


def test_extend_in_any_batches_gives_the_same_tree_and_nodes() -> None:
    size, frontier, nodes = 0, [], []
    for batch in (LEAVES[i : i + 7] for i in range(0, 70, 7)):
        size, frontier, completed = extend(size, frontier, batch, keep_from_level=1)
        nodes += completed
        assert root_from_frontier(frontier) == REFERENCE.mth(0, size)
    for level, index, node in nodes:
        assert node == REFERENCE.mth(index << level, (index + 1) << level)
    assert len(nodes) == sum(70 >> level for level in range(1, 7))


@pytest.mark.parametrize("size", range(1, 71))
def test_inclusion_plan_gives_path(size: int) -> None:
    for m in range(size):
        assert planned(inclusion_plan(m, size)) == REFERENCE.path(m, 0, size)
        verify_inclusion(m, size, LEAVES[m], REFERENCE.path(m, 0, size), REFERENCE.mth(0, size))


@pytest.mark.parametrize("second", range(1, 71))
def test_consistency_plan_gives_proof(second: int) -> None:
    for first in range(1, second + 1):
        proof = REFERENCE.proof(first, second)
        assert planned(consistency_plan(first, second)) == proof
        verify_consistency(first, second, REFERENCE.mth(0, first), REFERENCE.mth(0, second), proof)


def test_range_hash_of_a_right_edge_node() -> None:
    def perfect(a: int, b: int) -> bytes:
        assert (b - a) & (b - a - 1) == 0, "a power-of-two width"
        assert a % (b - a) == 0, "aligned on its width"
        return REFERENCE.mth(a, b)

    assert range_hash(64, 70, perfect) == REFERENCE.mth(64, 70)


def flip(data: bytes, bit: int) -> bytes:
    return data[: bit // 8] + bytes([data[bit // 8] ^ 1 << bit % 8]) + data[bit // 8 + 1 :]


# A proof binds the leaf, its index and the root; the tree size is bound by the signed
# checkpoint that carries the root, so "same proof, other size" is not a probe here.
def inclusion_mutations(m: int, n: int) -> dict[str, tuple[int, int, bytes, list[bytes]]]:
    path = REFERENCE.path(m, 0, n)
    probes = {
        "wrong-leaf": (m, n, leaf_hash(b"not the entry"), path),
        "leaf-index+1": (m + 1, n, LEAVES[m], path),
        "leaf-index-1": (m - 1, n, LEAVES[m], path),
        "extra-hash": (m, n, LEAVES[m], [*path, b"\x00" * 32]),
        "truncated": (m, n, LEAVES[m], path[:-1]),
        "reversed": (m, n, LEAVES[m], path[::-1]),
    }
    for i in range(len(path)):
        probes[f"modified-proof[{i}]-bit-@3"] = (
            m,
            n,
            LEAVES[m],
            [*path[:i], flip(path[i], 3), *path[i + 1 :]],
        )
    return probes


def accepted(verify: Callable[..., None], probes: dict[str, tuple[Any, ...]]) -> list[str]:
    """The names of the mutated probes `verify` let through: each must raise ProofError."""
    through = []
    for name, args in probes.items():
        try:
            verify(*args)
        except ProofError:
            continue
        through.append(name)
    return through


@pytest.mark.parametrize(
    ("m", "n"), [(0, 1), (0, 2), (1, 2), (4, 7), (6, 7), (13, 70), (69, 70), (31, 32)]
)
def test_every_mutated_inclusion_proof_is_rejected(m: int, n: int) -> None:
    root = REFERENCE.mth(0, n)
    probes = {
        name: (index, size, leaf, path, root)
        for name, (index, size, leaf, path) in inclusion_mutations(m, n).items()
        # no such leaf, or a mutation that changes nothing (reversing one hash)
        if index >= 0 and (index, leaf, path) != (m, LEAVES[m], REFERENCE.path(m, 0, n))
    }
    assert accepted(verify_inclusion, probes) == [], "expected an error but got none"


@pytest.mark.parametrize(
    ("m", "n"), [(1, 2), (3, 7), (4, 7), (1, 70), (32, 70), (64, 70), (69, 70)]
)
def test_every_mutated_consistency_proof_is_rejected(m: int, n: int) -> None:
    proof = REFERENCE.proof(m, n)
    old, new = REFERENCE.mth(0, m), REFERENCE.mth(0, n)
    probes = {
        "wrong-old-root": (m, n, flip(old, 0), new, proof),
        "wrong-new-root": (m, n, old, flip(new, 0), proof),
        "first+1": (m + 1, n, old, new, proof),
        "extra-hash": (m, n, old, new, [*proof, b"\x00" * 32]),
        "truncated": (m, n, old, new, proof[:-1]),
        "empty": (m, n, old, new, []),
    }
    for i in range(len(proof)):
        probes[f"modified-proof[{i}]-bit-@3"] = (
            m,
            n,
            old,
            new,
            [*proof[:i], flip(proof[i], 3), *proof[i + 1 :]],
        )
    kept = {name: args for name, args in probes.items() if args[0] <= args[1]}
    assert accepted(verify_consistency, kept) == [], "expected an error but got none"


def test_a_tree_is_consistent_with_itself_only_by_an_empty_proof() -> None:
    root = REFERENCE.mth(0, 9)
    verify_consistency(9, 9, root, root, [])
    with pytest.raises(ProofError):
        verify_consistency(9, 9, root, flip(root, 1), [])
    with pytest.raises(ProofError):
        verify_consistency(9, 9, root, root, [root])


def test_proofs_outside_the_tree_are_refused() -> None:
    with pytest.raises(ProofError):
        inclusion_plan(5, 5)
    with pytest.raises(ProofError):
        consistency_plan(0, 5)
    with pytest.raises(ProofError):
        consistency_plan(6, 5)


def test_extend_a_row_at_a_time_matches_leaf_by_leaf() -> None:
    """Every split of 70 leaves into two appends gives the nodes and frontier that 70
    single-leaf appends give."""
    single: tuple[int, list[bytes], list[tuple[int, int, bytes]]] = (0, [], [])
    by_leaf = []
    for leaf in LEAVES:
        size, frontier, completed = extend(single[0], single[1], [leaf], keep_from_level=0)
        single = (size, frontier, single[2] + completed)
        by_leaf.append(single)
    for cut in range(71):
        size, frontier, first = extend(0, [], LEAVES[:cut], keep_from_level=0)
        size, frontier, second = extend(size, frontier, LEAVES[cut:], keep_from_level=0)
        assert (size, frontier) == by_leaf[-1][:2]
        assert sorted(first + second) == sorted(by_leaf[-1][2])
        assert sorted(first) == sorted(by_leaf[cut - 1][2] if cut else [])
