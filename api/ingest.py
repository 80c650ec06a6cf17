"""`argusic ingest`: read input records, let the domain decide, append all or nothing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from domain.editions import EditionRecord, draft_edition
from domain.events import DomainEvent, EditionDrafted
from domain.rejections import Rejected
from ledger.ledger import Ledger, NewEvent

Record = EditionRecord
_record_decoder = msgspec.json.Decoder(Record)


class RecordRejection(msgspec.Struct, frozen=True, kw_only=True):
    file: str
    line: int
    reason: str


class IngestRejected(Exception):
    """At least one record broke a rule: nothing was appended."""

    def __init__(self, rejections: list[RecordRejection]) -> None:
        super().__init__(f"{len(rejections)} record(s) rejected, nothing appended")
        self.rejections = rejections


class IngestReport(msgspec.Struct, frozen=True, kw_only=True):
    records: int
    appended: int
    unchanged: int
    ledger_size: int


def _split(text: bytes) -> list[tuple[int, bytes]]:
    """Records of a file: a JSON array (numbered by position), one JSON object, or JSON lines."""
    try:
        whole = msgspec.json.decode(text, type=list[msgspec.Raw] | dict[str, msgspec.Raw])
    except msgspec.DecodeError:
        return [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    if isinstance(whole, dict):
        return [(1, text)]
    return [(i, bytes(raw)) for i, raw in enumerate(whole, 1)]


def read_records(path: Path) -> tuple[list[tuple[int, Record]], list[RecordRejection]]:
    """Decode every record of a file, each rejection naming its line and what is wrong."""
    records, rejections = [], []
    for line, raw in _split(path.read_bytes()):
        try:
            records.append((line, _record_decoder.decode(raw)))
        except msgspec.ValidationError as e:
            rejections.append(RecordRejection(file=str(path), line=line, reason=str(e)))
        except msgspec.DecodeError as e:
            rejections.append(RecordRejection(file=str(path), line=line, reason=f"not JSON: {e}"))
    return records, rejections


def _decide(ledger: Ledger, record: Record, pending: dict[str, DomainEvent]) -> list[DomainEvent]:
    stream = f"edition:{record.version}"
    recorded = pending.get(stream) or next(
        (r.event for r in ledger.stream(stream) if isinstance(r.event, EditionDrafted)), None
    )
    return list(draft_edition(record, recorded))


def ingest(ledger: Ledger, paths: Sequence[Path]) -> IngestReport:
    """Validate every record of every file, then append what they decide as one batch."""
    rejections: list[RecordRejection] = []
    decided: list[DomainEvent] = []
    pending: dict[str, DomainEvent] = {}
    count = 0
    for path in paths:
        records, bad = read_records(path)
        rejections += bad
        count += len(records) + len(bad)
        for line, record in records:
            try:
                events = _decide(ledger, record, pending)
            except Rejected as e:
                rejections.append(RecordRejection(file=str(path), line=line, reason=str(e)))
                continue
            decided += events
            pending.update((e.stream, e) for e in events)
    if rejections:
        raise IngestRejected(rejections)
    size = ledger.append([NewEvent(e, 1) for e in decided]).size if decided else ledger.size()
    return IngestReport(
        records=count, appended=len(decided), unchanged=count - len(decided), ledger_size=size
    )
