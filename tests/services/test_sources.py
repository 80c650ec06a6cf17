"""`sources fetch` and `siiq update` against a fake source reader (the port), on a real ledger."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest

from api.services.siiq_update import NO_DATA, update_siiq
from api.services.sources import SourcesQueries, fetch_sources
from api.wiring import Argusic
from domain.errors import InvalidInput
from domain.events import SourceSnapshotRecorded
from domain.siiq.crosscheck import Claim
from domain.siiq.snapshots import Answer
from tests.domain.test_siiq_snapshots import ADDRESS, answer
from tests.services.fakes import bootstrap


class FakeReading:
    """Answers what the test scripts, and keeps what each read was asked with."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, str | None, str | None, str | None]] = []

    def read(
        self,
        source: str,
        address: str,
        etag: str | None,
        last_modified: str | None,
        current: str | None,
    ) -> Answer:
        self.asked.append((source, address, etag, last_modified, current))
        return self.answers.pop(0)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Argusic]:
    argusic = bootstrap(tmp_path)
    yield argusic
    argusic.close()


SOURCES = {"epoch": [ADDRESS]}


def test_a_fetch_asks_with_the_last_good_files_validators(app: Argusic) -> None:
    reading = FakeReading(
        answer("jan"), answer("jan", 1, not_modified=True, tables=None, sha256="")
    )
    first = fetch_sources(app.ledger, reading, SOURCES)
    assert [r.status for r in first.sources] == ["new"]
    second = fetch_sources(app.ledger, reading, SOURCES)
    assert reading.asked == [
        ("epoch", ADDRESS, None, None, None),
        ("epoch", ADDRESS, '"jan"', None, answer("jan").sha256),
    ]
    assert [(r.status, r.sha256) for r in second.sources] == [("unchanged", answer("jan").sha256)]


def test_a_failure_then_the_good_file_back(app: Argusic) -> None:
    broken = msgspec.structs.replace(
        answer("apr", 1), tables=None, failure="x: an HTML page", failure_kind="html"
    )
    reading = FakeReading(answer("jan"), broken, broken, answer("jan", 3))
    for _ in range(4):
        fetch_sources(app.ledger, reading, SOURCES)
    recorded = [r.event for r in app.ledger.events() if isinstance(r.event, SourceSnapshotRecorded)]
    assert [(e.ok, e.failure) for e in recorded] == [
        (True, None),
        (False, "x: an HTML page"),
        (True, None),
    ]
    # After the failure, the next read still asks against the good file.
    assert reading.asked[2][2:] == ('"jan"', None, answer("jan").sha256)


def test_only_a_configured_source_may_be_named(app: Argusic) -> None:
    with pytest.raises(InvalidInput, match="'arena' is not configured"):
        fetch_sources(app.ledger, FakeReading(), SOURCES, only="arena")


class ConfirmingChecker:
    """A checker that confirms every claim (the stand-in's protocol is tested over HTTP)."""

    name = "fake"
    family = "Checker Lab"

    def __init__(self) -> None:
        self.claims = 0

    def ask(self, claims: Sequence[Claim]) -> list[str]:
        self.claims += len(claims)
        return ['{"model": true, "benchmark": true, "number": true, "identity": true}'] * len(
            claims
        )


NOW = datetime(2026, 11, 2, tzinfo=UTC)


def test_update_publishes_the_checked_values_and_retries_the_first_calibration(
    app: Argusic,
) -> None:
    checker = ConfirmingChecker()
    assert update_siiq(app.ledger, checker, NOW).reason == NO_DATA
    assert update_siiq(app.ledger, None, NOW).halted
    fetch_sources(app.ledger, FakeReading(answer("jan")), SOURCES)
    fetch_sources(app.ledger, FakeReading(answer("apr", 1)), SOURCES)
    report = update_siiq(app.ledger, checker, NOW)
    assert report.published == checker.claims > 0
    assert report.calibrated
    assert report.calibration is not None
    assert not report.calibration.accepted  # reference members lack results (the real data)
    assert set(report.inputs) == {f"epoch {ADDRESS}", "reference", "aliases"}
    assert report.inputs[f"epoch {ADDRESS}"] == answer("apr").sha256
    # Nothing changed: nothing is checked or published again; the calibration is retried.
    again = update_siiq(app.ledger, checker, NOW + timedelta(hours=1))
    assert again.published == 0
    assert again.calibrated
    assert SourcesQueries(app.ledger).intake() is not None
