"""The map of the streams' heads (`ledger.heads_map`): a range of leaves with its proof gives
the map's root, and proves a selection has exactly its streams; leaving one out, adding one,
changing a head or moving the range is refused."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.heads_map import (
    Head,
    Span,
    head_leaf,
    map_root,
    range_proof,
    range_root,
    selected,
    selects,
    span,
)
from ledger.merkle import ProofError

KINDS = ("cycle:", "dispute:", "operator:", "operators", "publication", "run:", "rerun:")
names = st.builds(
    lambda kind, tail: kind + tail if kind.endswith(":") else kind,
    st.sampled_from(KINDS),
    st.text("abc:-0", max_size=3),
)
maps = st.sets(names, max_size=40).map(
    lambda streams: [
        Head(s, len(s) + 1, hashlib.sha256(s.encode()).digest()) for s in sorted(streams)
    ]
)
selections = st.sampled_from([*KINDS, "run:a", "run:", "dispute:b", "zzz:", "a"])


def proved(heads: list[Head], selection: str) -> tuple[int, list[Head], list[bytes]]:
    first, given, proof = span(heads, selection)
    return first, list(given), list(proof)


@given(maps, selections)
def test_a_selection_is_proved_with_exactly_its_streams(heads: list[Head], selection: str) -> None:
    first, given_heads, proof = proved(heads, selection)
    found = selected(selection, Span(first, given_heads, proof), len(heads), map_root(heads))
    assert found == [h for h in heads if selects(selection, h.stream)]


@given(maps, selections)
def test_a_selection_with_a_stream_left_out_is_refused(heads: list[Head], selection: str) -> None:
    first, given_heads, proof = proved(heads, selection)
    for left_out in range(len(given_heads)):
        fewer = given_heads[:left_out] + given_heads[left_out + 1 :]
        with pytest.raises(ProofError):
            selected(selection, Span(first, fewer, proof), len(heads), map_root(heads))


@given(maps, selections)
def test_a_head_changed_is_refused(heads: list[Head], selection: str) -> None:
    first, given_heads, proof = proved(heads, selection)
    for changed in range(len(given_heads)):
        older = list(given_heads)
        older[changed] = older[changed]._replace(version=older[changed].version - 1)
        with pytest.raises(ProofError):
            selected(selection, Span(first, older, proof), len(heads), map_root(heads))


@given(maps, selections)
def test_a_range_without_its_neighbours_is_refused(heads: list[Head], selection: str) -> None:
    """A range that stops inside the selection cannot pass for all of it."""
    inside = [i for i, h in enumerate(heads) if selects(selection, h.stream)]
    if len(inside) < 2:
        return
    first, end = inside[0], inside[-1]  # the last selected stream left outside the range
    proof = range_proof(heads, first, end)
    with pytest.raises(ProofError):
        selected(selection, Span(first, heads[first:end], proof), len(heads), map_root(heads))


@given(maps)
def test_the_whole_map_is_its_own_range(heads: list[Head]) -> None:
    assert range_root(len(heads), 0, [head_leaf(h) for h in heads], []) == map_root(heads)


def test_a_leaf_tells_its_streams_name_from_its_version() -> None:
    """The name goes with its length: a name's last bytes never read as a version."""
    one = Head("run:a", 2, bytes(32))
    other = Head("run:", int.from_bytes(b"a" + bytes(7), "big"), bytes(32))
    assert head_leaf(one) != head_leaf(other)


def test_an_empty_selection_is_proved_absent_by_its_neighbours() -> None:
    heads = [Head(n, 1, bytes(32)) for n in ("agent:x", "cycle:y", "run:z")]
    first, given_heads, proof = proved(heads, "dispute:")
    assert [h.stream for h in given_heads] == ["cycle:y", "run:z"]
    assert selected("dispute:", Span(first, given_heads, proof), 3, map_root(heads)) == []
    later = Span(2, given_heads[1:], range_proof(heads, 2, 3))
    with pytest.raises(ProofError, match="does not start before"):
        selected("dispute:", later, 3, map_root(heads))
