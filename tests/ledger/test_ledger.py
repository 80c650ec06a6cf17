"""The ledger on both backends: append, read back, hashes, positions, roots and proofs, all
recomputed from RFC 9162's recursive definitions (tests/ledger/rfc9162.py)."""

from __future__ import annotations

import hashlib
from typing import NoReturn

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from api.wiring import Settings, open_ledger
from domain.errors import NotFound
from ledger import ledger as ledger_module
from ledger.ledger import Ledger, NewEvent
from ledger.merkle import leaf_hash, verify_consistency, verify_inclusion
from ledger.note import open_checkpoint
from ledger.verify import verify
from tests.conftest import append_editions, edition, raw_execute
from tests.ledger.rfc9162 import Tree


def stored(book: Ledger) -> list[bytes]:
    rows = list(book.rows())
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), "positions are 1..n, no gaps"
    for row in rows:
        assert row[5] == hashlib.sha256(row[4]).digest(), f"hash of position {row[0]}"
    return [r[4] for r in rows]


def test_every_size_from_1_to_70_has_the_rfc_root_and_proofs(ledger: Ledger) -> None:
    for n in range(70):
        append_editions(ledger, n, 1)
    reference = Tree(stored(ledger))
    verifier = ledger.recorder.sealer.verifier
    for n in range(1, 71):
        checkpoint = ledger.checkpoint(n)
        assert checkpoint.root == reference.mth(0, n)
        body = open_checkpoint(checkpoint.note, verifier)
        assert (body.size, body.root) == (n, reference.mth(0, n))
        for position in range(1, n + 1):
            proof = ledger.inclusion_proof(position, n)
            path = [bytes.fromhex(h) for h in proof.path]
            assert path == reference.path(position - 1, 0, n)
            assert proof.leaf_hash == reference.mth(position - 1, position).hex()
            verify_inclusion(position - 1, n, bytes.fromhex(proof.leaf_hash), path, checkpoint.root)
        for first in range(1, n + 1):
            path = [bytes.fromhex(h) for h in ledger.consistency_proof(first, n).path]
            assert path == reference.proof(first, n)
            verify_consistency(first, n, reference.mth(0, first), checkpoint.root, path)


def test_batches_of_any_size_give_the_same_tree(ledger: Ledger) -> None:
    start = 0
    for size in (1, 15, 16, 17, 33, 100, 2):
        append_editions(ledger, start, size)
        start += size
        reference = Tree(stored(ledger))
        assert ledger.checkpoint().root == reference.mth(0, start)
        assert ledger.root(start) == reference.mth(0, start)
    assert verify(ledger).ok


def test_events_read_back_as_appended(ledger: Ledger) -> None:
    events = [edition(n) for n in range(5)]
    ledger.append([NewEvent(e, 1) for e in events])
    assert [r.event for r in ledger.events()] == events
    assert [r.position for r in ledger.events(after=2, upto=4)] == [3, 4]
    assert [r.event for r in ledger.stream(events[3].stream)] == [events[3]]


def test_a_conflicting_version_refuses_the_whole_batch(ledger: Ledger) -> None:
    append_editions(ledger, 0, 3)
    before = ledger.checkpoint()
    with pytest.raises(IntegrityError):
        ledger.append([NewEvent(edition(10), 1), NewEvent(edition(1), 1), NewEvent(edition(11), 1)])
    assert ledger.checkpoint() == before
    assert len(stored(ledger)) == 3
    ledger.append([NewEvent(edition(1), 2)])
    assert ledger.size() == 4
    assert verify(ledger).ok


def test_proofs_outside_the_ledger_are_refused(ledger: Ledger) -> None:
    append_editions(ledger, 0, 4)
    with pytest.raises(LookupError):
        ledger.inclusion_proof(5)
    with pytest.raises(LookupError):
        ledger.inclusion_proof(0)
    with pytest.raises(LookupError):
        ledger.consistency_proof(2, 5)
    with pytest.raises(LookupError):
        ledger.checkpoint(7)


def test_a_writer_with_a_stale_head_rebuilds_on_the_new_one(
    ledger: Ledger, settings: Settings
) -> None:
    other = open_ledger(settings)
    append_editions(ledger, 0, 2)  # `ledger` now knows head 2
    append_editions(other, 10, 3)  # `other` moves the head to 5 behind its back
    append_editions(ledger, 20, 4)  # refused on head 2 by the database, rebuilt on head 5
    assert [r[0] for r in ledger.rows()] == list(range(1, 10))
    assert ledger.checkpoint().previous == 5
    assert verify(ledger).ok
    other.recorder.close()


def test_the_database_lets_only_one_checkpoint_extend_a_head(
    ledger: Ledger, settings: Settings
) -> None:
    append_editions(ledger, 0, 3)
    with pytest.raises(Exception, match=r"(?i)unique"):
        raw_execute(
            settings,
            "INSERT INTO ledger_checkpoints SELECT size + 1, previous, root, note, sealed_at, "
            "frontier FROM ledger_checkpoints WHERE size = 3",
        )


def batches_of(start: int, sizes: list[int]) -> list[list[NewEvent]]:
    out, n = [], start
    for size in sizes:
        out.append([NewEvent(edition(i), 1) for i in range(n, n + size)])
        n += size
    return out


def test_streamed_batches_each_get_their_checkpoint(ledger: Ledger) -> None:
    sizes = [1, 16, 3, 40, 7]
    head = ledger.append_batches(batches_of(0, sizes))
    assert head.size == sum(sizes)
    assert [c.size for c in ledger.recorder.select_checkpoints(0, 100)] == [1, 17, 20, 60, 67]
    assert ledger.checkpoint().root == Tree(stored(ledger)).mth(0, 67)
    assert verify(ledger).ok


def test_a_refused_streamed_batch_keeps_the_ones_before_and_drops_the_rest(ledger: Ledger) -> None:
    batches = batches_of(0, [5, 5, 5])
    batches[1][2] = NewEvent(edition(0), 1)  # (edition:9.0, 1) is in the first batch
    with pytest.raises(IntegrityError):
        ledger.append_batches([*batches, *batches_of(100, [5, 5])])
    assert [r.event for r in ledger.events()] == [e.event for e in batches[0]]
    assert verify(ledger).ok
    append_editions(ledger, 200, 2)  # and the ledger goes on from the last commit
    assert ledger.size() == 7


def test_streamed_batches_rebuild_on_a_head_moved_by_another_writer(
    ledger: Ledger, settings: Settings
) -> None:
    other = open_ledger(settings)
    append_editions(ledger, 0, 2)
    append_editions(other, 10, 3)
    ledger.append_batches(batches_of(20, [4, 4, 4]))
    assert [r[0] for r in ledger.rows()] == list(range(1, 18))
    assert verify(ledger).ok
    other.recorder.close()


def test_a_ledger_holding_its_tree_proves_from_memory_what_the_database_proves(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's ledger holds its tree (`hold_tree`): its proofs and roots are the RFC's, and
    the database is asked for no stored node or leaf; events appended since are held as far
    as a proof asks, checked against the head's checkpoint."""
    append_editions(ledger, 0, 2 * 1024 + 100)
    ledger.hold_tree()

    def not_asked(*_: object) -> NoReturn:
        raise AssertionError("a held tree's proof asked the database for Merkle inputs")

    monkeypatch.setattr(ledger.recorder, "merkle_inputs", not_asked)
    for grown in (0, 37):
        if grown:
            append_editions(ledger, 5_000, grown)
        size = ledger.size()
        reference = Tree(stored(ledger))
        for position in (1, 5, 16, 17, 700, 1024, 1500, 2100, size):
            for tree in {position, 1029, size} - set(range(position)):
                path = [bytes.fromhex(h) for h in ledger.inclusion_proof(position, tree).path]
                assert path == reference.path(position - 1, 0, tree), (position, tree)
        for first, second in ((1, size), (17, 1024), (1024, 2048), (999, size)):
            path = [bytes.fromhex(h) for h in ledger.consistency_proof(first, second).path]
            assert path == reference.proof(first, second), (first, second)
        assert ledger.root(size) == ledger.checkpoint(size).root
    with pytest.raises(NotFound, match="past the latest checkpoint"):
        ledger.root(ledger.size() + 5)  # no hash of an event not yet checked is ever made up


def test_a_growth_of_the_held_tree_cut_off_half_way_leaves_what_was_vouched_for(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database failing while a held tree grows leaves the tree as it was checked: proofs
    below it are still made, and the next growth holds the events from there, once."""
    append_editions(ledger, 0, 100)
    ledger.hold_tree()
    append_editions(ledger, 1_000, 50)
    size, hashed = ledger.size(), 0

    def failing(entry: bytes) -> bytes:
        nonlocal hashed
        hashed += 1
        if hashed > 20:
            raise OperationalError("server closed the connection unexpectedly")
        return leaf_hash(entry)

    monkeypatch.setattr(ledger_module, "leaf_hash", failing)
    with pytest.raises(OperationalError):
        ledger.inclusion_proof(size, size)
    reference = Tree(stored(ledger))
    path = [bytes.fromhex(h) for h in ledger.inclusion_proof(7, 100).path]
    assert path == reference.path(6, 0, 100)
    monkeypatch.undo()
    path = [bytes.fromhex(h) for h in ledger.inclusion_proof(size, size).path]
    assert path == reference.path(size - 1, 0, size)
