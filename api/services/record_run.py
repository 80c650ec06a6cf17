"""Recording one run: its record checked by the rules, its evidence received (each file read
once: stored as it came and derived into its served copy in the same pass), and every event it
gives decided at once, so a run and its evidence's events are always appended together.

Shared by `ingest` (many records, appended in batches) and the runner (one run at a time)."""

from __future__ import annotations

from pathlib import Path

from api.services.evidence import VIDEO, DerivedFile, EvidenceIntake, recorded_evidence
from api.services.json_input import shown_path
from api.services.ports import Banners, EvidenceStore
from api.services.reader import ProjectionReader
from api.services.timeline import timeline_on_arrival
from domain.cycles import in_cycle
from domain.errors import Rejected
from domain.events import DomainEvent, Evidence, RerunRequested
from domain.evidence.quoting import quoted_text_events
from domain.evidence.run_texts import redact_run_texts
from domain.evidence.withholding import credential_may_be_on_screen
from domain.runs import (
    RunRecord,
    admit_run,
    evidence_inside_its_folder,
    missing_evidence,
    outside_its_folder,
    resolve_agent,
)
from domain.state.methodology import Methodology
from domain.verification import verification_found
from ledger.ledger import Ledger, NewEvent, RecordedEvent
from projections.methodology import MethodologyProjection


def evidence_files(record: RunRecord, folder: Path) -> dict[str, Path]:
    """The files a run names, relative to its record's folder and inside it once every
    symbolic link is followed (section 17); a named file must be there."""
    found = {}
    inside = folder.resolve()
    named = record.evidence
    for kind, name in (("log", named.log), ("cast", named.cast), ("video", named.video)):
        if not name:
            continue
        path = (inside / evidence_inside_its_folder(record.run_id, kind, name)).resolve()
        if not path.is_relative_to(inside):
            raise Rejected("section 17", outside_its_folder(record.run_id, kind, name))
        if not path.is_file():
            shown = shown_path(folder / name)
            raise Rejected("section 17", f"evidence.{kind}: no file at {shown}")
        found[kind] = path
    return found


def screen_checked(derived: dict[str, DerivedFile]) -> dict[str, DerivedFile]:
    """A desktop run's video withheld where a credential may be on screen (section 17)."""
    video = derived.get(VIDEO)
    if video is None or video.withheld is not None:
        return derived
    reason = credential_may_be_on_screen({k: d.applied for k, d in derived.items()})
    return derived if reason is None else {**derived, VIDEO: video._replace(withheld=reason)}


def run_events(
    record: RunRecord,
    folder: Path,
    state: Methodology,
    intake: EvidenceIntake,
    budget_minutes: float | None = None,
) -> list[DomainEvent]:
    """Methodology sections 4, 7, 8, 16 and 17: what recording this run appends: the run (its
    texts redacted like its evidence; a v1.4+ `tier1_real` claim checked against its stored,
    redacted recording, read again for that alone), then each file's transforms (or its
    withholding), each text's redaction and the quoted text as pages show it; nothing for a
    run already recorded the same way. `budget_minutes` is the orchestrator's, when it ran it."""
    files = evidence_files(record, folder)
    record, redacted_texts = redact_run_texts(record)
    registered = state.agents.get(record.agent.id)
    agent = resolve_agent(record.agent, registered)
    known = state.runs.get(record.run_id) or state.reproduced.get(record.run_id)
    if known is not None:
        received = intake.fingerprints(files, record.model_key)
        admit_run(
            record,
            recorded_evidence(known.event.evidence, received),
            set(state.editions),
            known.event,
            agent=agent,
            budget_minutes=known.event.budget_minutes,
            verification=known.event.verification,  # found from the same evidence and report
        )
        return []
    if (cycle := state.cycles.get(record.cycle)) is not None:
        stronger = record.attempt == "stronger"
        in_cycle(
            run_id=record.run_id,
            agent=agent,
            project=record.project,
            stronger=stronger,
            cycle=cycle,
            registered=registered,
        )
    derived = screen_checked(intake.derive(files, agent.harness, record.model_key))
    evidence = Evidence(**{kind: d.received.kept for kind, d in derived.items()})
    members = state.set_members((agent.id, record.project.id, record.cycle))
    cast = evidence.cast
    stored = None if cast is None or cast.bytes == 0 else cast.sha256
    verification = verification_found(
        record.report,
        record.edition,
        None if stored is None else lambda: intake.store.read(stored),
    )
    (run,) = admit_run(
        record,
        evidence,
        set(state.editions),
        None,
        agent=agent,
        first_of_set=members[0].event if members else None,
        budget_minutes=budget_minutes,
        verification=verification,
    )
    events: list[DomainEvent] = [run]
    for kind, file in derived.items():
        events += file.events(run.run_id, kind)
    asked = any(isinstance(e, RerunRequested) for e in events)  # a withheld file's already
    again = None if asked else missing_evidence(run)
    timeline = timeline_on_arrival(run, events, intake.store)
    return [
        *events,
        *redacted_texts,
        *quoted_text_events(run),
        *([again] if again else []),
        *([timeline] if timeline else []),
    ]


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


class RunRecording:
    """`record_run` for the runner: what one finished run records (its run, its evidence's
    section 17 events, derived with the run's own key, never stored), decided but not appended,
    so the runner appends it with the run's closing in one batch."""

    def __init__(self, ledger: Ledger, store: EvidenceStore, banners: Banners) -> None:
        self.ledger, self.store, self.banners = ledger, store, banners

    def __call__(self, record: RunRecord, folder: Path, budget_minutes: float) -> list[NewEvent]:
        """The record's evidence paths are relative to `folder` (the run's folder under
        ARGUSIC_HOME), as an ingested record's are to its file's."""
        state = ProjectionReader(self.ledger, MethodologyProjection()).latest()
        intake = EvidenceIntake(self.store, self.banners)
        events = run_events(record, folder, state, intake, budget_minutes)
        return self.ledger.next_versions(events)
