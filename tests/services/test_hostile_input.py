"""Hostile input at the intake (issue 16): evidence paths leading out of the record's folder,
records too long or nested too deep, action files the same, non-UTF-8 names; each refused with
a sentence naming the record and the rule, nothing appended, in bounded memory."""

from __future__ import annotations

import os
import re
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from api.services.ingest import IngestRejected, ingest
from api.services.json_input import MAX_RECORD_BYTES, TOO_DEEP, decoded
from api.services.operators import read_action, read_signed
from api.wiring import Argusic
from domain.errors import InvalidInput, Rejected
from tests.records import EDITIONS, run, write
from tests.services.fakes import FakeEvidenceStore, bootstrap

SECRET = b"root:x:0:0:the file outside the record's folder\n"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Argusic]:
    argusic = bootstrap(tmp_path / "app")
    ingest(argusic.ledger, [write(tmp_path, "editions.jsonl", EDITIONS)], argusic.store)
    yield argusic
    argusic.close()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file beside the records' folder, which no record may name."""
    target = tmp_path / "outside" / "passwd"
    target.parent.mkdir()
    target.write_bytes(SECRET)
    return target


def refused(app: Argusic, records: Path) -> list[str]:
    """The reasons an ingest of `records` is refused; nothing appended, nothing stored of the
    file outside."""
    before = app.ledger.size()
    with pytest.raises(IngestRejected) as refusal:
        ingest(app.ledger, [records], app.store)
    assert app.ledger.size() == before
    assert isinstance(app.store, FakeEvidenceStore)
    assert SECRET not in app.store.files.values()
    return [f"{r.file}:{r.line}: {r.reason}" for r in refusal.value.rejections]


def folder_of_records(tmp_path: Path, log: str) -> Path:
    folder = tmp_path / "records"
    folder.mkdir(exist_ok=True)
    return write(folder, "runs.jsonl", [run("r1", "p", "agent-a", "100", log=log)])


@pytest.mark.parametrize(
    "name",
    ["../outside/passwd", "../../../../../../../../../etc/passwd", "logs/../../outside/passwd"],
)
def test_evidence_inside_its_folder_refuses_a_parent_path(
    app: Argusic, tmp_path: Path, outside: Path, name: str
) -> None:
    (reason,) = refused(app, folder_of_records(tmp_path, name))
    assert reason.endswith(
        f"runs.jsonl:1: run r1: evidence.log {name!r} leads outside the record's folder; an "
        "evidence path is relative to the record's file and stays inside its folder (no "
        "absolute path, no '..', no symbolic link leading out) (section 17)"
    )


def test_evidence_inside_its_folder_refuses_an_absolute_path(
    app: Argusic, tmp_path: Path, outside: Path
) -> None:
    (reason,) = refused(app, folder_of_records(tmp_path, str(outside)))
    assert f"run r1: evidence.log {str(outside)!r} leads outside the record's folder" in reason


@pytest.mark.parametrize("link", ["run.log", "logs/run.log"])
def test_evidence_inside_its_folder_refuses_a_symbolic_link_leading_out(
    app: Argusic, tmp_path: Path, outside: Path, link: str
) -> None:
    records = folder_of_records(tmp_path, link)
    (records.parent / link).unlink(missing_ok=True)
    if "/" in link:  # the folder itself is the link
        (records.parent / "logs").symlink_to(outside.parent, target_is_directory=True)
        (outside.parent / "run.log").write_bytes(SECRET)
    else:
        (records.parent / link).symlink_to(outside)
    (reason,) = refused(app, records)
    assert f"run r1: evidence.log {link!r} leads outside the record's folder" in reason


def test_a_symbolic_link_inside_the_folder_is_followed(app: Argusic, tmp_path: Path) -> None:
    records = folder_of_records(tmp_path, "latest.log")
    (records.parent / "latest.log").symlink_to(records.parent / "run.log")
    assert ingest(app.ledger, [records], app.store).appended > 0


DEEP = b"[" * 10_000 + b"]" * 10_000


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (b'{"kind": "run", "report": ' + DEEP + b"}", "Expected `object | null`, got `array`"),
        (DEEP, "Expected `object`, got `array`"),
    ],
)
def test_a_record_nested_ten_thousand_deep_is_refused_naming_its_line(
    app: Argusic, tmp_path: Path, record: bytes, reason: str
) -> None:
    """Alone in its file (read whole first) or among JSON lines: refused by its line."""
    alone = tmp_path / "deep.json"
    alone.write_bytes(record)
    among = folder_of_records(tmp_path, "run.log")
    among.write_bytes(among.read_bytes() + record + b"\n")
    for records, line in ((alone, 1), (among, 2)):
        (refusal,) = refused(app, records)
        assert f"{records.name}:{line}: {reason}" in refusal


def test_json_nested_deeper_than_the_decoder_goes_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match=re.escape(TOO_DEEP)):
        decoded(msgspec.json.Decoder(), DEEP)


def test_a_json_line_of_100_mb_is_refused_in_bounded_memory(app: Argusic, tmp_path: Path) -> None:
    records = folder_of_records(tmp_path, "run.log")
    size = 100 * 1024 * 1024
    with records.open("ab") as file:
        file.write(b'{"kind": "run", "run_id": "')
        file.write(b"a" * size)  # one write; the file is what the reader gets
        file.write(b'"}\n')
        file.write(records.read_bytes().splitlines()[0] + b"\n")  # a record after it
    tracemalloc.start()
    try:
        reasons = refused(app, records)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.split(": ", 1)[1] for r in reasons] == [
        f"a record of {size + 30:,} bytes or more; a record may be at most {MAX_RECORD_BYTES:,}"
    ]
    assert reasons[0].split(":")[-2].endswith("2")  # line 2; line 3 is read after it
    assert peak < 3 * MAX_RECORD_BYTES


@pytest.mark.parametrize(
    ("read", "reason"),
    [
        (read_action, f"not an action file: {TOO_DEEP} (operators)"),
        (read_signed, "not a signed action: Expected `object`, got `array` - at `$.action`"),
    ],
)
def test_an_action_file_nested_too_deep_is_refused(
    read: Callable[[bytes], object], reason: str
) -> None:
    with pytest.raises(Rejected, match=re.escape(reason)):
        read(b'{"action": ' + DEEP + b"}")


def test_a_records_file_with_a_non_utf8_name_is_named_in_its_refusal(
    app: Argusic, tmp_path: Path
) -> None:
    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9")
    Path(folder).mkdir()
    records = write(Path(folder), "runs.jsonl", [run("r1", "p", "agent-a", "100", log="x.log")])
    (reason,) = refused(app, records)
    assert "evidence.log: no file at" in reason
    assert reason.count("/caf\\xe9/runs.jsonl") == 1  # as the file the record is in
    assert reason.count("/caf\\xe9/x.log") == 1  # and as the folder of the file it names
