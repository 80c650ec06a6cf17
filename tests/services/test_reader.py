"""The reader's kept states when the database fails under a read, and what it keeps per
position."""

from __future__ import annotations

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
