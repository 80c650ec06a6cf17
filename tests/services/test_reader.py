"""The reader's kept states when the database fails under a read, and what it keeps per
position."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from eventsourcing.persistence import OperationalError

from api.services import queries
from api.services.queries import MethodologyQueries
from api.services.reader import KEPT_STATES, ProjectionReader
from domain.errors import NotFound
from domain.state.publication import public_state
from ledger.codec import encode_json
from ledger.ledger import Ledger, RecordedEvent
from projections.base import fold
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
def test_a_read_as_of_a_position_the_reader_has_reached_asks_the_database_nothing(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    World(ledger, tmp_path).ingest([run("r-0", "octo/p", "agent-a", "100", day=10)])
    reader = ProjectionReader(ledger, MethodologyProjection())
    head = reader.look(lambda _, at: at)
    asked = []
    monkeypatch.setattr(ledger, "size", lambda: asked.append("size") or Ledger.size(ledger))
    assert reader.answer("at", lambda _, at: at, as_of=head) == head
    assert reader.answer("at", lambda _, at: at, as_of=head - 1) == head - 1
    assert asked == []
    with pytest.raises(NotFound):
        reader.answer("at", lambda _, at: at, as_of=head + 1)
    assert asked == ["size"], "a position past the latest state's is checked against the ledger"


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


def busy(queries: MethodologyQueries) -> bool:
    """Whether a read holds one of the queries' locks (the approvals', the latest state's, a
    kept one's)."""
    reader = queries.reader
    kept = [k.lock for k in reader._kept.values()]
    locks = [queries.approvals._lock, reader._lock, reader._kept_lock, *kept]
    return any(lock.locked() for lock in locks)


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
            if busy(public):
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
    assert moved_at > 1, "the read never looked at the ledger"


def approvals(ledger: Ledger, world: World, home: Path, count: int) -> list[int]:
    """`count` days of runs, each approved for the public; the positions approved."""
    approved = []
    for day in range(count):
        runs = [run(f"r-{day}-{i}", "octo/p", "agent-a", "100", day=10 + day) for i in range(5)]
        world.ingest(runs)
        approved.append(publish(ledger, home))
    return approved


class Published(NamedTuple):
    approved: list[int]
    public: MethodologyQueries
    latest: LeaderboardView
    """The public leaderboard, as of the latest approval."""
    world: World


def published(ledger: Ledger, home: Path, count: int) -> Published:
    """`count` approvals of new runs, and public queries that have read the latest."""
    world = World(ledger, home)
    approved = approvals(ledger, world, home, count)
    public = MethodologyQueries(ledger, published=True)
    latest = public.leaderboard("2026-09")
    assert latest.as_of == approved[-1]
    return Published(approved, public, latest, world)


def folded_events(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The positions of the events read from the ledger from now on (each read to be folded)."""
    folded: list[int] = []

    def counted(after: int = 0, upto: int | None = None) -> Iterator[RecordedEvent]:
        for recorded in Ledger.events(ledger, after, upto):
            folded.append(recorded.position)
            yield recorded

    monkeypatch.setattr(ledger, "events", counted)
    return folded


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_reads_alternating_between_two_earlier_approvals_fold_each_once(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a read as of an earlier position folded the ledger from position 0 again on
    every request, and dropped the published state; one client asking two earlier positions in
    turn made every published page slow. Each earlier approved position is folded once: the
    first from the start (nothing kept is below it), the second on from a copy of the first."""
    (older, old, _), public, latest, _ = published(ledger, tmp_path, 3)
    folded = folded_events(ledger, monkeypatch)
    for _ in range(10):
        for position in (older, old):
            assert public.leaderboard("2026-09", as_of=position).as_of == position
    assert len(folded) == old, f"{len(folded)} events folded for 20 reads, {old} at most"
    del folded[:]
    assert public.leaderboard("2026-09") == latest  # the published state kept: no fold
    assert folded == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_earlier_states_are_kept_up_to_the_bound_and_never_the_published_one_dropped(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (*earlier, newest), public, latest, _ = published(ledger, tmp_path, KEPT_STATES + 2)
    for position in reversed(earlier):  # each older than all kept: folded from the start
        public.leaderboard("2026-09", as_of=position)
    kept = public.reader.kept()
    assert len(kept) == KEPT_STATES
    assert newest in kept
    assert kept[-1] == earlier[0]  # the latest read
    folded = folded_events(ledger, monkeypatch)
    assert public.leaderboard("2026-09") == latest
    assert public.leaderboard("2026-09", as_of=earlier[0]).as_of == earlier[0]
    assert folded == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_new_approval_folds_the_published_state_on_in_place(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The published position moving on costs the events from the latest state's position to
    it, once, and no copy: the latest state is folded on to the approved position, not to the
    head past it (which approval is the latest, the authority events alone tell)."""
    [first], public, _, world = published(ledger, tmp_path, 1)
    head = ledger.size()  # where the latest state is: the head when the reader started
    world.ingest([run("r-late", "octo/p", "agent-a", "92", day=20)])
    second = publish(ledger, tmp_path)
    world.ingest([run("r-later", "octo/p", "agent-a", "100", day=21)])
    folded = folded_events(ledger, monkeypatch)
    board = public.leaderboard("2026-09")
    assert board.as_of == second
    assert public.reader.kept() == [first]
    assert folded == list(range(head + 1, second + 1))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_new_public_reader_starts_from_the_model_stored_at_the_latest_approval(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writers store the read model at the latest approved position, not at the head past it:
    a server starting afresh folds nothing up to that position (a fold of the whole ledger
    otherwise, a minute at 100,000 runs), and its latest state only the events since."""
    world = World(ledger, tmp_path)
    world.ingest([run(f"r-{i}", "octo/p", "agent-a", "100", day=10 + i) for i in range(3)])
    approved = publish(ledger, tmp_path)
    world.ingest([run("r-late", "octo/p", "agent-a", "92", day=20)])
    head = ledger.size()
    position, model = ReadModel(ledger, MethodologyProjection()).catch_up()
    assert position == head
    assert encode_json(model) == encode_json(fold(MethodologyProjection(), ledger.events()))
    at_approval = fold(MethodologyProjection(), ledger.events(upto=approved))
    assert ledger.recorder.load_projection(MethodologyProjection.name) == (
        approved,
        encode_json(at_approval),
    )
    folded = folded_events(ledger, monkeypatch)
    assert MethodologyQueries(ledger, published=True).leaderboard("2026-09").as_of == approved
    assert folded == list(range(approved + 1, head + 1))
    second = publish(ledger, tmp_path)
    monkeypatch.undo()
    ReadModel(ledger, MethodologyProjection()).catch_up()
    stored = ledger.recorder.load_projection(MethodologyProjection.name)
    assert stored is not None
    assert stored[0] == second


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_ingest_stores_the_model_at_the_latest_approval_for_the_next_to_start_from(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest is a writer: it judges its records against the stored model folded on to the
    head, and stores that model at the latest approval, so that a series of `argusic ingest`
    commands does not fold the same events again at each one."""
    world = World(ledger, tmp_path)
    world.ingest([run("r-1", "octo/p", "agent-a", "100", day=10)])
    first = publish(ledger, tmp_path)
    world.ingest([run("r-2", "octo/p", "agent-a", "92", day=11)])
    second = publish(ledger, tmp_path)
    stored = ledger.recorder.load_projection(MethodologyProjection.name)
    assert stored is not None
    assert stored[0] == first  # the second approval was judged by a reader begun before it
    world.ingest([run("r-3", "octo/p", "agent-a", "100", day=12)])
    assert ledger.recorder.load_projection(MethodologyProjection.name) == (
        second,
        encode_json(fold(MethodologyProjection(), ledger.events(upto=second))),
    )
    head = ledger.size()
    folded = folded_events(ledger, monkeypatch)
    world.ingest([run("r-4", "octo/p", "agent-a", "92", day=13)])
    assert folded == list(range(second + 1, head + 1))
