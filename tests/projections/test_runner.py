"""Read models: as of any position, caught up incrementally, rebuilt to identical bytes."""

from __future__ import annotations

from pathlib import Path

from api.wiring import Settings, init
from ledger.codec import encode_json
from ledger.ledger import Ledger, NewEvent
from projections.base import fold
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from tests.conftest import edition

PROJECTION = MethodologyProjection()


def fill(book: Ledger, count: int) -> list[NewEvent]:
    # Inserted out of version order, so the fold's sorting matters at every position.
    events = [NewEvent(edition(n), 1) for n in reversed(range(count))]
    for i in range(0, count, 3):
        book.append(events[i : i + 3])
    return events


def test_as_of_n_equals_the_projection_of_only_the_first_n_events(
    ledger: Ledger, tmp_path: Path
) -> None:
    events = fill(ledger, 12)
    read_model = ReadModel(ledger, PROJECTION)
    read_model.catch_up()  # stored at the head: as_of(N) must rewind, not reuse it
    for n in range(len(events) + 1):
        fresh, _ = init(Settings(f"sqlite:///{tmp_path}/first-{n}.db", tmp_path / "home", "json"))
        if n:
            fresh.append(events[:n])
        expected = encode_json(fold(PROJECTION, fresh.events()))
        assert encode_json(read_model.as_of(n)) == expected, f"as of position {n}"
        assert encode_json(fold(PROJECTION, ledger.events(upto=n))) == expected
        fresh.recorder.close()


def test_catch_up_applies_only_what_is_new(ledger: Ledger) -> None:
    fill(ledger, 6)
    read_model = ReadModel(ledger, PROJECTION)
    assert read_model.catch_up()[0] == 6
    ledger.append([NewEvent(edition(99), 1)])
    position, model = read_model.catch_up()
    assert position == 7
    assert list(model.editions)[-1] == "9.99"
    assert encode_json(model) == encode_json(fold(PROJECTION, ledger.events()))
    assert read_model.stored()[0] == 7


def test_rebuilding_twice_gives_identical_bytes(ledger: Ledger) -> None:
    fill(ledger, 9)
    read_model = ReadModel(ledger, PROJECTION)
    read_model.rebuild()
    first = ledger.recorder.load_projection(PROJECTION.name)
    read_model.rebuild()
    second = ledger.recorder.load_projection(PROJECTION.name)
    assert first is not None
    assert first == second
    assert first[1] == encode_json(fold(PROJECTION, ledger.events()))


def test_as_of_ahead_of_the_stored_model_folds_on_from_it(ledger: Ledger) -> None:
    fill(ledger, 6)
    read_model = ReadModel(ledger, PROJECTION)
    read_model.catch_up()
    fill_more = [NewEvent(edition(50 + n), 1) for n in range(4)]
    ledger.append(fill_more)
    assert encode_json(read_model.as_of(10)) == encode_json(
        fold(PROJECTION, ledger.events(upto=10))
    )
    assert read_model.stored()[0] == 6, "answering as of a position stores nothing"
