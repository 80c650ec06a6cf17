"""The Argusic methodology folded from the ledger: editions, runs, reviews, evidence and reruns,
and the queries every view asks of them (a run judged, a run's set, projects under review)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from typing import NamedTuple

import msgspec

from domain.editions import version_key
from domain.environment_qa import is_under_review
from domain.errors import NotFound
from domain.events import (
    EditionDrafted,
    EvidenceTransformed,
    ProjectReviewCleared,
    RecordingWithheld,
    RerunRequested,
    RunRecorded,
)
from domain.runs import invalid_reason, run_outcome, run_score
from domain.scoring import Outcome, ScoreLines
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


class Review(msgspec.Struct, frozen=True, kw_only=True):
    """A review that cleared a project (section 15), where the ledger holds it."""

    position: int
    recorded_at: datetime
    reviewer: str
    note: str


class Rerun(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    reason: str


class Judged(NamedTuple):
    """A run as the rules judge it: why it does not count, or its outcome and score lines."""

    run: Run
    invalid_reason: str | None
    outcome: Outcome | None
    lines: ScoreLines | None

    @property
    def event(self) -> RunRecorded:
        return self.run.event


SetKey = tuple[str, str, str]
"""A set (sections 7 and 9): the runs of one agent on one project in one cycle."""


class Methodology(msgspec.Struct, kw_only=True):
    editions: dict[str, Edition] = msgspec.field(default_factory=dict)
    runs: dict[str, Run] = msgspec.field(default_factory=dict)
    """Run id: the run, in ledger order (a run is recorded once, so arrival order holds)."""
    last_review: dict[str, int] = msgspec.field(default_factory=dict)
    """Project id: the position of its latest review clearance."""
    reviews: dict[str, list[Review]] = msgspec.field(default_factory=dict)
    """Project id: every review that cleared it, in ledger order."""
    evidence: dict[str, dict[str, EvidenceCopy]] = msgspec.field(default_factory=dict)
    """Run id: its files (and quoted text) by kind, as served."""
    reruns: dict[str, Rerun] = msgspec.field(default_factory=dict)

    def ordered_editions(self) -> list[Edition]:
        return sorted(self.editions.values(), key=lambda e: version_key(e.version))

    def find_run(self, run_id: str, as_of: int) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} as of position {as_of}")
        return run

    def rerun_reason(self, run_id: str) -> str | None:
        """Why the run is repeated (section 17, its evidence withheld), if it is."""
        requested = self.reruns.get(run_id)
        return None if requested is None else requested.reason

    def judge(self, run: Run) -> Judged:
        """The run under its own edition, with its rerun (if any) taken into account."""
        repeated = self.rerun_reason(run.event.run_id)
        return Judged(
            run=run,
            invalid_reason=invalid_reason(run.event, repeated),
            outcome=run_outcome(run.event, repeated),
            lines=run_score(run.event, repeated),
        )

    def judged(self) -> list[Judged]:
        """Every run, judged, in ledger order."""
        return [self.judge(run) for run in self.runs.values()]

    def set_members(self, key: SetKey) -> list[Run]:
        """The runs of a set, valid or not, in ledger order."""
        return [run for run in self.runs.values() if set_key(run.event) == key]

    def projects_under_review(self) -> set[str]:
        """Section 15, for every project at once: valid attempts since its last review."""
        outcomes: dict[str, list[Outcome]] = defaultdict(list)
        for judged in self.judged():
            project = judged.event.project.id
            if judged.outcome is not None and judged.run.position > self.last_review.get(
                project, 0
            ):
                outcomes[project].append(judged.outcome)
        return {project for project, results in outcomes.items() if is_under_review(results)}


def set_key(run: RunRecorded) -> SetKey:
    return (run.agent.id, run.project.id, run.cycle)


class MethodologyProjection:
    name = "methodology.v2"
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
            case ProjectReviewCleared(project_id=project_id, reviewer=reviewer, note=note):
                model.last_review[project_id] = recorded.position
                model.reviews.setdefault(project_id, []).append(
                    Review(
                        position=recorded.position,
                        recorded_at=recorded.recorded_at,
                        reviewer=reviewer,
                        note=note,
                    )
                )
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
