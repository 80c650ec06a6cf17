"""Recording one run: its record checked by the rules, its evidence received (each file read
once: stored as it came and derived into its served copy in the same pass), and every event it
gives decided at once, so a run and its evidence's events are always appended together.

Shared by `ingest` (many records, appended in batches) and the runner (one run at a time)."""

from __future__ import annotations

from pathlib import Path

from api.services.evidence import EvidenceIntake
from api.services.ports import Banners, EvidenceStore
from api.services.reader import ProjectionReader
from domain.errors import Rejected
from domain.events import DomainEvent, Evidence
from domain.evidence.quoting import quoted_text_events
from domain.runs import RunRecord, admit_run
from ledger.ledger import Ledger, RecordedEvent
from projections.methodology import Methodology, MethodologyProjection


def evidence_files(record: RunRecord, folder: Path) -> dict[str, Path]:
    """The files a run names, relative to its record's folder; a named file must be there."""
    found = {}
    for kind, name in (("log", record.evidence.log), ("cast", record.evidence.cast)):
        if not name:
            continue
        path = folder / name
        if not path.is_file():
            raise Rejected("section 17", f"evidence.{kind}: no file at {path}")
        found[kind] = path
    return found


def run_events(
    record: RunRecord,
    folder: Path,
    state: Methodology,
    intake: EvidenceIntake,
    budget_minutes: float | None = None,
) -> list[DomainEvent]:
    """Methodology sections 4, 7, 8 and 17: what recording this run appends: the run, then each
    file's transforms (or its withholding) and the quoted text as pages show it; nothing for a
    run already recorded the same way. `budget_minutes` is the orchestrator's, when it ran it."""
    files = evidence_files(record, folder)
    known = state.runs.get(record.run_id)
    if known is not None:
        fingerprints = intake.fingerprints(files)
        admit_run(record, Evidence(**fingerprints), set(state.editions), known.event)
        return []
    derived = intake.derive(files, record.agent.harness, record.model_key)
    evidence = Evidence(**{kind: d.raw for kind, d in derived.items()})
    members = state.set_members((record.agent.id, record.project.id, record.cycle))
    first_of_set = members[0].event if members else None
    (run,) = admit_run(
        record,
        evidence,
        set(state.editions),
        None,
        first_of_set=first_of_set,
        budget_minutes=budget_minutes,
    )
    events: list[DomainEvent] = [run]
    for kind, file in derived.items():
        events += file.events(run.run_id, kind)
    return events + quoted_text_events(run)


def record_run(
    record: RunRecord,
    folder: Path,
    *,
    ledger: Ledger,
    store: EvidenceStore,
    banners: Banners,
    budget_minutes: float | None = None,
) -> list[RecordedEvent]:
    """Record one run and its evidence in one atomic append; returns what was appended."""
    state = ProjectionReader(ledger, MethodologyProjection()).latest()
    intake = EvidenceIntake(store, banners)
    events = run_events(record, folder, state, intake, budget_minutes)
    if not events:
        return []
    checkpoint = ledger.append(ledger.next_versions(events))
    return list(ledger.events(checkpoint.size - len(events), checkpoint.size))
