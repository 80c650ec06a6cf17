"""The reader's kept states when the database fails under a read, and what it keeps per
position."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from eventsourcing.persistence import OperationalError

from api.services import queries
from api.services.queries import MethodologyQueries
from api.services.reader import ProjectionReader
from domain.state.publication import public_state
from ledger.codec import encode_json
from ledger.ledger import Ledger, RecordedEvent
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from projections.views.leaderboard import LeaderboardView
from tests.api.world import World
from tests.publishing import publish
from tests.records import run


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_fold_cut_off_half_way_is_never_folded_on_again(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = World(ledger, tmp_path)
    reader = ProjectionReader(ledger, MethodologyProjection())
    reader.latest()
    reader.answer("pinned", lambda _, at: at, as_of=2)
    world.ingest([run(f"r-{i}", "octo/p", "agent-a", "100", day=10 + i) for i in range(3)])

    def cut_off(after: int = 0, upto: int | None = None) -> Iterator[RecordedEvent]:
        yield from list(Ledger.events(ledger, after, upto))[:2]
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(ledger, "events", cut_off)
    with pytest.raises(OperationalError):
        reader.latest()
    with pytest.raises(OperationalError):
        reader.answer("pinned", lambda _, at: at, as_of=ledger.size() - 1)
    monkeypatch.undo()

    fresh = ReadModel(ledger, MethodologyProjection())
    assert encode_json(reader.latest()) == encode_json(fresh.as_of())
    earlier = ledger.size() - 1
    pinned = reader.answer("state", lambda state, _: encode_json(state), as_of=earlier)
    assert pinned == encode_json(fresh.as_of(earlier))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_public_state_is_worked_out_once_per_published_position(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = World(ledger, tmp_path)
    world.ingest([run(f"r-{i}", "octo/p", "agent-a", "100", day=10 + i) for i in range(3)])
    approved = publish(ledger, tmp_path)
    worked_out: list[int] = []
    monkeypatch.setattr(
        queries, "public_state", lambda state: worked_out.append(1) or public_state(state)
    )
    public = MethodologyQueries(ledger, published=True)
    answers = [public.projects(), public.run("r-0"), public.leaderboard("2026-09")]
    answers.append(public.projects())
    assert len(worked_out) == 1
    assert [getattr(a, "approved", None) for a in answers[1:3]] == [answers[1].approved] * 2
    assert answers[1].approved
    assert answers[1].approved.position == approved


def board_runs(board: LeaderboardView) -> list[str]:
    return [r for row in board.rows for p in row.projects for r in p.runs]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_public_read_answers_as_of_its_position_when_another_moves_the_kept_state(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's readers are concurrent: between any two of a public read's looks at the
    ledger outside the reader's locks, another may publish and read the newer position,
    folding the kept state on. The first still answers exactly what its position holds (an
    open secret project makes the public state a copy of the kept one, which must not share
    what the fold changes). Each look of the read is tried in turn."""
    world = World(ledger, tmp_path)
    world.ingest(
        [
            run("r-0", "octo/p", "agent-a", "100", day=10),
            run("r-s", "octo/s", "agent-a", "100", day=10, pool="secret"),
        ]
    )
    size, published = ledger.size, ["r-0"]

    def read_moved_at(moved_at: int) -> tuple[LeaderboardView, list[LeaderboardView]]:
        """The public leaderboard as of the latest approval, read by a fresh reader while
        another publishes a run and reads at its `moved_at`th look; both answers."""
        first, public = publish(ledger, tmp_path), MethodologyQueries(ledger, published=True)
        looks, later = 0, []

        def moving() -> int:
            nonlocal looks
            if public.reader._lock.locked() or public.reader._pinned_lock.locked():
                return size()  # another reader waits for the lock: a fold is whole first
            looks += 1
            if looks == moved_at:
                monkeypatch.setattr(ledger, "size", size)
                published.append(f"r-{moved_at}")
                world.ingest([run(published[-1], "octo/p", "agent-a", "100", day=10)])
                publish(ledger, tmp_path)
                later.append(public.leaderboard("2026-09"))
                monkeypatch.setattr(ledger, "size", moving)
            return size()

        monkeypatch.setattr(ledger, "size", moving)
        board = public.leaderboard("2026-09", as_of=first)
        monkeypatch.setattr(ledger, "size", size)
        assert board.as_of == first
        return board, later

    for moved_at in itertools.count(1):
        held = list(published)
        board, later = read_moved_at(moved_at)
        assert board_runs(board) == held, f"moved at look {moved_at}"
        if not later:
            break
        assert board_runs(later[0]) == published
    assert moved_at > 2, "the read looked at the ledger more than once"
