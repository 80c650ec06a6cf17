"""What a finished run records, shared by ingest and the runner: its RunRecorded (the rules
of input checked) and its evidence's section 17 events. Decides; the caller appends."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from api.evidence import Deriver
from api.services.runner_ports import EvidenceStore
from domain.events import EditionDrafted, Evidence, RunRecorded, streams
from domain.runs import RunRecord, record_run
from ledger.ledger import Ledger, NewEvent


class RunRecording:
    """`record_run` for the runner: the record's evidence files are stored and fingerprinted,
    the served copies derived with the run's own key (section 17), never storing the key."""

    def __init__(self, ledger: Ledger, store: EvidenceStore, deriver: Deriver) -> None:
        self.ledger, self.store, self.deriver = ledger, store, deriver

    def __call__(self, record: RunRecord) -> Sequence[NewEvent]:
        files = {
            kind: Path(name)
            for kind, name in (("log", record.evidence.log), ("cast", record.evidence.cast))
            if name
        }
        evidence = Evidence(**{kind: self.store.put(path) for kind, path in files.items()})
        editions = {
            e.event.version
            for e in self.ledger.stream(streams.edition(record.edition))
            if isinstance(e.event, EditionDrafted)
        }
        earlier = [r.event for r in self.ledger.stream(streams.run(record.run_id))]
        recorded = next((e for e in earlier if isinstance(e, RunRecorded)), None)
        decided = record_run(record, evidence, editions, recorded)
        events = [NewEvent(run, 1) for run in decided]
        versions: dict[str, int] = {}
        for run in decided:
            for event in self.deriver.events(run, files, record.model_key):
                versions[event.stream] = versions.get(event.stream, 0) + 1
                events.append(NewEvent(event, versions[event.stream]))
        return events
