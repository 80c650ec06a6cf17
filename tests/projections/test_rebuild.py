"""The rebuild's fast read (pages read ahead, each envelope decoded once, stream, version and
hash from the columns) gives what the event-by-event fold of fully decoded envelopes gives."""

from __future__ import annotations

from itertools import islice

import pytest

from api.wiring import Settings
from domain.events import PublicationApproved
from ledger import codec
from ledger import ledger as ledger_module
from ledger.codec import encode_json
from ledger.ledger import Ledger, RecordedEvent
from projections.base import M, Projection
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from projections.siiq import SiiqProjection
from projections.siiq_sources import SiiqSourcesProjection
from tests.conftest import load_bundled_demo


def one_by_one(ledger: Ledger) -> list[RecordedEvent]:
    """Every event as the ledger held it before the fast read: one row at a time, the whole
    envelope decoded and checked against its columns."""
    recorded = []
    for position in range(1, ledger.size() + 1):
        (row,) = ledger.recorder.select_rows(position - 1, position, 1)
        envelope = codec.decode(row.canonical)
        assert (envelope.stream, envelope.version) == (row.stream, row.version)
        recorded.append(
            RecordedEvent(
                position=row.position,
                stream=envelope.stream,
                version=envelope.version,
                recorded_at=envelope.recorded_at,
                hash=row.hash,
                event=envelope.event,
            )
        )
    return recorded


def test_a_rebuild_stores_the_bytes_of_the_event_by_event_fold(
    ledger: Ledger, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_bundled_demo(settings, ledger)
    # Small pages, so the demo spans many and every page but the first is read ahead.
    monkeypatch.setattr(ledger_module, "PAGE", 7)
    expected = one_by_one(ledger)
    assert len(expected) > 3 * ledger_module.PAGE
    assert list(ledger.events()) == expected
    assert list(ledger.events(10, 30)) == expected[10:30]
    assert_rebuilt_as_folded(ledger, MethodologyProjection(), expected)
    assert_rebuilt_as_folded(ledger, SiiqProjection(), expected)
    assert_rebuilt_as_folded(ledger, SiiqSourcesProjection(), expected)


def assert_rebuilt_as_folded(
    ledger: Ledger, projection: Projection[M], expected: list[RecordedEvent]
) -> None:
    """The rebuilt model is the fold to the head, stored at the latest approved position."""
    approved = [r.event.position for r in expected if isinstance(r.event, PublicationApproved)]
    folded, at_approval = projection.initial(), None
    for recorded in expected:
        if recorded.position == approved[-1] + 1:
            at_approval = encode_json(folded)
        folded = projection.apply(folded, recorded)
    position, model = ReadModel(ledger, projection).rebuild()
    assert position == expected[-1].position
    assert encode_json(model) == encode_json(folded), projection.name
    stored = ledger.recorder.load_projection(projection.name)
    assert stored == (approved[-1], at_approval), projection.name


def test_a_read_stopped_half_way_leaves_the_ledger_readable(
    ledger: Ledger, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_bundled_demo(settings, ledger)
    monkeypatch.setattr(ledger_module, "PAGE", 5)
    # The reader is dropped after 12 events: the page being read ahead is waited for.
    first = list(islice(ledger.events(), 12))
    assert [r.position for r in first] == list(range(1, 13))
    assert len(list(ledger.events())) == ledger.size()
