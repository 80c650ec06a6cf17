"""`ingest`: read input records, let the domain decide, append all or nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec
from eventsourcing.persistence import InterfaceError, OperationalError

from api.services.evidence import EvidenceIntake
from api.services.json_input import MAX_DOCUMENT_BYTES, decoded, lines, shown_path
from api.services.ports import Banners, EvidenceStore
from api.services.reader import ProjectionReader
from api.services.record_run import run_events
from domain.cycles import AgentRecord, CycleRecord, open_cycle, register_agent
from domain.editions import EditionRecord, draft_edition
from domain.errors import InvalidInput, Rejected, SetupError
from domain.events import DomainEvent
from domain.runs import RunRecord
from domain.state.methodology import Methodology
from ledger.ledger import Ledger, NewEvent, RecordedEvent
from projections.methodology import MethodologyProjection

Record = EditionRecord | AgentRecord | CycleRecord | RunRecord
_decoder = msgspec.json.Decoder(Record)
BATCH = 1_000
_NOT_YET = datetime.min.replace(tzinfo=UTC)


class RecordRejection(msgspec.Struct, frozen=True, kw_only=True):
    file: str
    line: int
    reason: str


class IngestRejected(InvalidInput):
    """At least one record broke a rule: nothing was appended."""

    def __init__(self, rejections: list[RecordRejection]) -> None:
        super().__init__(f"{len(rejections)} record(s) rejected, nothing appended")
        self.rejections = rejections


class IngestInterrupted(SetupError):
    """The database failed between the ingest's batches: those committed before hold whole
    records, and the same ingest run again passes over them and appends the rest."""

    def __init__(self, error: Exception) -> None:
        super().__init__(
            f"the database failed while appending ({error}); the batches appended before it "
            "hold whole records: run the same ingest again to append the rest"
        )


class IngestReport(msgspec.Struct, frozen=True, kw_only=True):
    records: int
    appended: int
    unchanged: int
    ledger_size: int


def _split(path: Path) -> Iterator[tuple[int, bytes | InvalidInput]]:
    """Records of a file: a JSON array (numbered by position) or one JSON object, for a file
    read whole; else JSON lines, read a line at a time."""
    if path.stat().st_size <= MAX_DOCUMENT_BYTES:
        text = path.read_bytes()
        try:
            whole = msgspec.json.decode(text, type=list[msgspec.Raw] | dict[str, msgspec.Raw])
        except (msgspec.DecodeError, RecursionError):
            pass  # JSON lines, or a record too deep: which line says so when read alone
        else:
            if isinstance(whole, dict):
                yield 1, text
            else:
                yield from enumerate(map(bytes, whole), 1)
            return
    yield from lines(path)


def read_records(path: Path) -> Iterator[tuple[int, Record | RecordRejection]]:
    """Each record of a file, or the rejection that names its line and what is wrong."""
    for line, raw in _split(path):
        try:
            if isinstance(raw, InvalidInput):
                raise raw
            yield line, decoded(_decoder, raw)
        except msgspec.ValidationError as e:
            yield line, RecordRejection(file=shown_path(path), line=line, reason=str(e))
        except msgspec.DecodeError as e:
            yield line, RecordRejection(file=shown_path(path), line=line, reason=f"not JSON: {e}")
        except InvalidInput as e:
            yield line, RecordRejection(file=shown_path(path), line=line, reason=str(e))


class Intake:
    """Decides record after record against the ledger's state, folding in each decision as it
    goes, so a record sees the records before it in the same ingest. Each record's events are
    kept together: they are appended in the same batch."""

    def __init__(self, position: int, state: Methodology, evidence: EvidenceIntake) -> None:
        self.position = position
        self.state = state
        self.evidence = evidence
        self.projection = MethodologyProjection()
        self.decided: list[list[DomainEvent]] = []

    def decide(self, record: Record, folder: Path) -> None:
        """Fold in what the rules decide for `record` (possibly nothing)."""
        events: Sequence[DomainEvent]
        match record:
            case EditionRecord():
                edition = self.state.editions.get(record.version)
                events = draft_edition(record, None if edition is None else edition.event)
            case AgentRecord():
                events = register_agent(record, self.state.agents.get(record.id))
            case CycleRecord():
                known = self.state.cycles.get(record.id)
                events = open_cycle(record, known, set(self.state.agents))
            case RunRecord():
                events = run_events(record, folder, self.state, self.evidence)
        for event in events:
            self.position += 1
            self.projection.apply(self.state, _pending(self.position, event))
        if events:
            self.decided.append(list(events))


def _pending(position: int, event: DomainEvent) -> RecordedEvent:
    """A decided event as it will be recorded: `recorded_at` and `hash` are not known yet and
    no rule reads them."""
    return RecordedEvent(
        position=position,
        stream=event.stream,
        version=0,
        recorded_at=_NOT_YET,
        hash=b"",
        event=event,
    )


def batches(units: list[list[NewEvent]], size: int = BATCH) -> Iterator[list[NewEvent]]:
    """Units (a record's events) packed in order into batches of about `size` events, a unit
    never split, so an interrupted ingest leaves no run without its evidence's events."""
    batch: list[NewEvent] = []
    for unit in units:
        if batch and len(batch) + len(unit) > size:
            yield batch
            batch = []
        batch += unit
    if batch:
        yield batch


def no_banners(_: str) -> list[str]:
    return []


def ingest(
    ledger: Ledger,
    paths: Sequence[Path],
    store: EvidenceStore,
    banners: Banners = no_banners,
    reader: ProjectionReader[Methodology] | None = None,
) -> IngestReport:
    """Validate every record of every file, then append the events in batches of about 1,000
    (each atomic, a record's events never split); one rejected record appends nothing.
    Judged against the state at the head as `reader` has it: a long-lived caller's, folded on in
    memory from one ingest to the next, or one made here, which starts from the stored model
    and stores it on at the latest approval, so that the next ingest need not fold again what
    this one did."""
    reader = reader or ProjectionReader(ledger, MethodologyProjection())
    position, state = reader.look(lambda state, at: (at, state))
    intake = Intake(position, state, EvidenceIntake(store, banners))
    rejections: list[RecordRejection] = []
    count = 0
    for path in paths:
        for line, record in read_records(path):
            count += 1
            if isinstance(record, RecordRejection):
                rejections.append(record)
                continue
            try:
                intake.decide(record, path.parent)
            except Rejected as e:
                rejections.append(RecordRejection(file=shown_path(path), line=line, reason=str(e)))
    if rejections:
        raise IngestRejected(rejections)
    placed = iter(ledger.next_versions(e for unit in intake.decided for e in unit))
    units = [[next(placed) for _ in unit] for unit in intake.decided]
    appended = sum(map(len, units))
    if units:
        try:
            ledger.append_batches(batches(units))
        except (OperationalError, InterfaceError) as e:
            raise IngestInterrupted(e) from e
    return IngestReport(
        records=count,
        appended=appended,
        unchanged=count - len(units),
        ledger_size=ledger.size(),
    )
