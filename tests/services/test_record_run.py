"""The shared run intake (`record_run`, `ingest`) against fakes at the ports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import msgspec
import pytest

from api.services.ingest import IngestRejected, batches, ingest
from api.services.record_run import record_run
from api.wiring import Argusic
from domain.errors import Rejected
from domain.events import EditionDrafted
from domain.runs import RunRecord
from ledger.ledger import NewEvent, RecordedEvent
from tests.records import EDITIONS, run, write
from tests.services.fakes import FakeEvidenceStore, bootstrap

DAY = date(2026, 9, 1)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Argusic]:
    argusic = bootstrap(tmp_path)
    ingest(argusic.ledger, [write(tmp_path, "editions.jsonl", EDITIONS)], argusic.store)
    yield argusic
    argusic.close()


def store_of(app: Argusic) -> FakeEvidenceStore:
    assert isinstance(app.store, FakeEvidenceStore)
    return app.store


def types(app: Argusic, after: int) -> list[str]:
    return [type(e.event).__name__ for e in app.ledger.events(after)]


def decode(record: dict[str, Any]) -> RunRecord:
    return msgspec.json.decode(json.dumps(record), type=RunRecord)


def test_record_run_appends_the_run_and_its_evidence_events_at_once(
    app: Argusic, tmp_path: Path
) -> None:
    write(tmp_path, "unused.jsonl", [])
    before = app.ledger.size()
    appended = record_run(
        decode(run("r1", "p", "agent-a", "100")),
        tmp_path,
        ledger=app.ledger,
        store=app.store,
        banners=app.banners,
    )
    assert [type(e.event).__name__ for e in appended] == [
        "RunRecorded",
        *["EvidenceTransformed"] * 6,
        "TimelineRecorded",
    ]
    sealed = app.ledger.recorder.select_checkpoints(before, 10)
    assert [c.size for c in sealed] == [before + 8]  # one batch, one checkpoint


def test_each_evidence_file_is_read_once(app: Argusic, tmp_path: Path) -> None:
    records = [run(f"r{i}", "p", "agent-a", "100") for i in range(3)]  # all name the same files
    ingest(app.ledger, [write(tmp_path, "runs.jsonl", records)], app.store)
    assert store_of(app).reads == {tmp_path / "run.log": 1, tmp_path / "run.cast": 1}


def test_the_same_run_again_records_nothing_and_a_changed_one_is_rejected(
    app: Argusic, tmp_path: Path
) -> None:
    original = decode(run("r1", "p", "agent-a", "100"))
    write(tmp_path, "unused.jsonl", [])

    def record(changed: RunRecord) -> list[RecordedEvent]:
        return record_run(
            changed, tmp_path, ledger=app.ledger, store=app.store, banners=app.banners
        )

    assert record(original)
    assert record(original) == []
    with pytest.raises(Rejected, match="already recorded differently"):
        record(decode(run("r1", "p", "agent-a", "92")))


def test_a_withheld_file_withholds_the_run_in_the_same_append(app: Argusic, tmp_path: Path) -> None:
    write(tmp_path, "unused.jsonl", [])
    (tmp_path / "run.cast").write_text("not a recording\n")
    before = app.ledger.size()
    record_run(
        decode(run("r1", "p", "agent-a", "100")),
        tmp_path,
        ledger=app.ledger,
        store=app.store,
        banners=app.banners,
    )
    assert types(app, before) == [
        "RunRecorded",
        *["EvidenceTransformed"] * 3,  # the log: redaction, generated keys, branding
        "EvidenceTransformed",  # the cast: stored redacted as plain text, never served
        "RecordingWithheld",
        "RerunRequested",
    ]


def test_a_rejected_ingest_appends_nothing(app: Argusic, tmp_path: Path) -> None:
    before = app.ledger.size()
    bad = run("r2", "p", "agent-a", "100") | {"edition": "9.9"}
    with pytest.raises(IngestRejected) as rejected:
        ingest(
            app.ledger,
            [write(tmp_path, "runs.jsonl", [run("r1", "p", "a", "100"), bad])],
            app.store,
        )
    assert [r.line for r in rejected.value.rejections] == [2]
    assert app.ledger.size() == before


def test_the_report_counts_add_up(app: Argusic, tmp_path: Path) -> None:
    records = [run("r1", "p", "agent-a", "100")]
    first = ingest(app.ledger, [write(tmp_path, "a.jsonl", records)], app.store)
    again = ingest(app.ledger, [write(tmp_path, "b.jsonl", [*records, *EDITIONS])], app.store)
    assert (first.records, first.appended, first.unchanged) == (1, 8, 0)
    assert (again.records, again.appended, again.unchanged) == (5, 0, 5)


def test_batches_never_split_a_records_events() -> None:
    unit = [
        NewEvent(EditionDrafted(version=f"9.{i}", drafted=DAY, summary="s"), 1) for i in range(3)
    ]
    sizes = [len(b) for b in batches([unit] * 5, size=7)]
    assert sizes == [6, 6, 3]
    assert [len(b) for b in batches([unit * 4, unit], size=7)] == [12, 3]
