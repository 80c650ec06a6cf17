"""`argusic ingest`: read input records, let the domain decide, append all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from adapters.artifacts import fingerprint
from api.evidence import Deriver, EvidenceStore
from domain.editions import EditionRecord, draft_edition
from domain.environment_qa import ReviewRecord, clear_review
from domain.errors import Rejected
from domain.events import (
    DomainEvent,
    EditionDrafted,
    Evidence,
    Fingerprint,
    ProjectReviewCleared,
    RunRecorded,
)
from domain.runs import RunRecord, record_run
from ledger.ledger import Ledger, NewEvent, RecordedEvent
from projections.methodology import Methodology, MethodologyProjection
from projections.runner import ReadModel
from projections.views import projects_under_review

Record = EditionRecord | RunRecord | ReviewRecord
_decoder = msgspec.json.Decoder(Record)
BATCH = 1_000
_NOT_YET = datetime.min.replace(tzinfo=UTC)


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


class Intake:
    """Decides record after record against the ledger's state, folding in each decision as it
    goes, so a record sees the records before it in the same ingest."""

    def __init__(self, ledger: Ledger, position: int, state: Methodology) -> None:
        self.ledger = ledger
        self.position = position
        self.state = state
        self.projection = MethodologyProjection()
        self.decided: list[NewEvent] = []
        self.evidence: list[tuple[RunRecorded, dict[str, Path], str | None]] = []
        self._files: dict[tuple[Path, str], tuple[Path, Fingerprint]] = {}

    def decide(self, record: Record, folder: Path) -> None:
        """Fold in what the rules decide for `record` (possibly nothing)."""
        events: Sequence[DomainEvent]
        match record:
            case EditionRecord():
                edition = self.state.editions.get(record.version)
                recorded = edition and EditionDrafted(
                    version=edition.version, drafted=edition.drafted, summary=edition.summary
                )
                events = draft_edition(record, recorded)
            case RunRecord():
                files = self._evidence_files(record, folder)
                evidence = Evidence(**{kind: seen for kind, (_, seen) in files.items()})
                run = self.state.runs.get(record.run_id)
                events = record_run(record, evidence, set(self.state.editions), run and run.event)
                self.evidence += [
                    (e, {k: p for k, (p, _) in files.items()}, record.model_key) for e in events
                ]
            case ReviewRecord():
                under_review = record.project in projects_under_review(self.state)
                events = clear_review(record, under_review)
        for event in events:
            self.position += 1
            self.decided.append(NewEvent(event, self._version(event)))
            self.projection.apply(self.state, _pending(self.position, event))

    def _evidence_files(
        self, record: RunRecord, folder: Path
    ) -> dict[str, tuple[Path, Fingerprint]]:
        """The files a run names, each read and fingerprinted once per ingest."""
        found = {}
        for kind, name in (("log", record.evidence.log), ("cast", record.evidence.cast)):
            if not name:
                continue
            if (folder, name) not in self._files:
                path = folder / name
                if not path.is_file():
                    raise Rejected("section 17", f"evidence.{kind}: no file at {path}")
                self._files[folder, name] = (path, fingerprint(path))
            found[kind] = self._files[folder, name]
        return found

    def _version(self, event: DomainEvent) -> int:
        """Runs and editions are recorded once (version 1); a project's reviews accumulate."""
        if not isinstance(event, ProjectReviewCleared):
            return 1
        earlier = sum(1 for e, _ in self.decided if e.stream == event.stream)
        return len(self.ledger.stream(event.stream)) + earlier + 1


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


def read_records(path: Path) -> Iterator[tuple[int, Record | RecordRejection]]:
    """Each record of a file, or the rejection that names its line and what is wrong."""
    for line, raw in _split(path.read_bytes()):
        try:
            yield line, _decoder.decode(raw)
        except msgspec.ValidationError as e:
            yield line, RecordRejection(file=str(path), line=line, reason=str(e))
        except msgspec.DecodeError as e:
            yield line, RecordRejection(file=str(path), line=line, reason=f"not JSON: {e}")


def ingest(
    ledger: Ledger,
    paths: Sequence[Path],
    store: EvidenceStore,
    banners: Callable[[str], list[str]] = lambda _: [],
) -> IngestReport:
    """Validate every record of every file, then store the evidence with its served copies
    (section 17) and append the events (in batches of 1,000, each atomic); one rejected record
    appends nothing at all."""
    position = ledger.size()
    intake = Intake(ledger, position, ReadModel(ledger, MethodologyProjection()).as_of(position))
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
                rejections.append(RecordRejection(file=str(path), line=line, reason=str(e)))
    if rejections:
        raise IngestRejected(rejections)
    events = intake.decided
    deriver = Deriver(store, banners)
    for run, files, model_key in intake.evidence:
        derived = deriver.events(run, files, model_key)
        versions: dict[str, int] = {}
        for event in derived:
            versions[event.stream] = versions.get(event.stream, 0) + 1
            events.append(NewEvent(event, versions[event.stream]))
    if events:
        ledger.append_batches(events[i : i + BATCH] for i in range(0, len(events), BATCH))
    return IngestReport(
        records=count,
        appended=len(events),
        unchanged=count - len(events),
        ledger_size=ledger.size(),
    )
