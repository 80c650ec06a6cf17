"""The Argusic methodology folded from the ledger: editions, runs and reviews, from which every
read model (leaderboard, project, run, editions, sources) is a pure view."""

from __future__ import annotations

from datetime import date

import msgspec

from domain.editions import version_key
from domain.events import (
    EditionDrafted,
    EvidenceTransformed,
    ProjectReviewCleared,
    RecordingWithheld,
    RerunRequested,
    RunRecorded,
)
from ledger.ledger import RecordedEvent


class Edition(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    version: str
    drafted: date
    summary: str


class Run(msgspec.Struct, frozen=True, kw_only=True):
    """A recorded run and the ledger position it arrived at."""

    position: int
    event: RunRecorded


class EvidenceCopy(msgspec.Struct, kw_only=True):
    """A run's file as served (section 17): the transforms applied in order, or why withheld."""

    raw_sha256: str
    served_sha256: str | None = None
    transforms: list[str] = msgspec.field(default_factory=list)
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    withheld: str | None = None
    positions: list[int] = msgspec.field(default_factory=list)


class Rerun(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    reason: str


class Methodology(msgspec.Struct, kw_only=True):
    editions: dict[str, Edition] = msgspec.field(default_factory=dict)
    runs: dict[str, Run] = msgspec.field(default_factory=dict)
    """Run id: the run, in ledger order (a run is recorded once, so arrival order holds)."""
    last_review: dict[str, int] = msgspec.field(default_factory=dict)
    """Project id: the position of its latest review clearance."""
    evidence: dict[str, dict[str, EvidenceCopy]] = msgspec.field(default_factory=dict)
    """Run id: its files (and quoted text) by kind, as served."""
    reruns: dict[str, Rerun] = msgspec.field(default_factory=dict)

    def ordered_editions(self) -> list[Edition]:
        return sorted(self.editions.values(), key=lambda e: version_key(e.version))


class MethodologyProjection:
    name = "methodology.v1"
    model_type = Methodology

    def initial(self) -> Methodology:
        return Methodology()

    def apply(self, model: Methodology, recorded: RecordedEvent) -> Methodology:
        match recorded.event:
            case EditionDrafted(version=version, drafted=drafted, summary=summary):
                model.editions[version] = Edition(
                    position=recorded.position, version=version, drafted=drafted, summary=summary
                )
            case RunRecorded(run_id=run_id) as run:
                model.runs[run_id] = Run(position=recorded.position, event=run)
            case ProjectReviewCleared(project_id=project_id):
                model.last_review[project_id] = recorded.position
            case EvidenceTransformed() as step:
                copy = _copy(model, step.run_id, step.kind, step.input_sha256)
                copy.served_sha256 = step.output_sha256
                copy.transforms.append(f"{step.transform}@{step.version}")
                for name, count in step.counts.items():
                    copy.counts[name] = copy.counts.get(name, 0) + count
                copy.positions.append(recorded.position)
            case RecordingWithheld() as withheld:
                copy = _copy(model, withheld.run_id, withheld.kind, withheld.input_sha256)
                copy.withheld, copy.served_sha256 = withheld.reason, None
                copy.positions.append(recorded.position)
            case RerunRequested(run_id=run_id, reason=reason):
                model.reruns[run_id] = Rerun(position=recorded.position, reason=reason)
        return model


def _copy(model: Methodology, run_id: str, kind: str, raw_sha256: str) -> EvidenceCopy:
    copies = model.evidence.setdefault(run_id, {})
    if kind not in copies:
        copies[kind] = EvidenceCopy(raw_sha256=raw_sha256)
    return copies[kind]
