"""The Argusic methodology folded from the ledger: editions, runs, reviews, evidence, voided
runs and reruns, and the queries every view asks of them (a run judged, a run's set, projects
under review in a cycle, the source types in use)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import NamedTuple

import msgspec

from domain.editions import version_key
from domain.environment_qa import Finding, is_under_review
from domain.errors import NotFound
from domain.events import (
    EditionDrafted,
    EvidenceTransformed,
    ProjectReviewCleared,
    ProjectReviewed,
    RecordingWithheld,
    RerunRequested,
    RunRecorded,
    RunVoided,
    SourceType,
)
from domain.evidence import redaction
from domain.runs import invalid_reason, repeated, run_outcome, run_score
from domain.scoring import Outcome, ScoreLines
from domain.source_types import source_table
from ledger.ledger import RecordedEvent


class Edition(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    event: EditionDrafted


class Run(msgspec.Struct, frozen=True, kw_only=True):
    """A recorded run and the ledger position it arrived at."""

    position: int
    event: RunRecorded


class EvidenceCopy(msgspec.Struct, kw_only=True):
    """A run's file as served (section 17): the transforms applied in order, or why withheld."""

    raw_sha256: str
    served_sha256: str | None = None
    stored_sha256: str | None = None
    """The file as kept (section 17: security-redacted as it arrived), where it was."""
    transforms: list[str] = msgspec.field(default_factory=list)
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    withheld: str | None = None
    positions: list[int] = msgspec.field(default_factory=list)


class Noted(msgspec.Struct, frozen=True, kw_only=True):
    """A reason recorded against a run after it (a rerun request, a voiding), and where."""

    position: int
    reason: str


class Review(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    finding: Finding
    reviewer: str
    note: str


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
    sets: dict[str, dict[str, dict[str, list[str]]]] = msgspec.field(default_factory=dict)
    """Cycle, project, agent: the set's run ids, in ledger order."""
    reviews: dict[str, dict[str, list[Review]]] = msgspec.field(default_factory=dict)
    """Project, cycle: its reviews there, in ledger order."""
    evidence: dict[str, dict[str, EvidenceCopy]] = msgspec.field(default_factory=dict)
    """Run id: its files (and quoted text) by kind, as served."""
    reruns: dict[str, Noted] = msgspec.field(default_factory=dict)
    voided: dict[str, Noted] = msgspec.field(default_factory=dict)

    def ordered_editions(self) -> list[Edition]:
        return sorted(self.editions.values(), key=lambda e: version_key(e.event.version))

    def find_run(self, run_id: str, as_of: int) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} as of position {as_of}")
        return run

    def rerun_reason(self, run_id: str) -> str | None:
        """Why the run is repeated (its evidence withheld, an environment fault), if it is."""
        requested = self.reruns.get(run_id)
        return None if requested is None else requested.reason

    def set_aside(self, run_id: str) -> str | None:
        """Why the ledger set a recorded run aside: voided, or repeated."""
        if run_id in self.voided:
            return self.voided[run_id].reason
        again = self.rerun_reason(run_id)
        return None if again is None else repeated(again)

    def judge(self, run: Run) -> Judged:
        """The run under its own edition, with what was recorded against it since."""
        aside = self.set_aside(run.event.run_id)
        return Judged(
            run=run,
            invalid_reason=invalid_reason(run.event, aside),
            outcome=run_outcome(run.event, aside),
            lines=run_score(run.event, aside),
        )

    def judged(self) -> list[Judged]:
        """Every run, judged, in ledger order."""
        return [self.judge(run) for run in self.runs.values()]

    def set_members(self, key: SetKey) -> list[Run]:
        """The runs of a set, valid or not, in ledger order."""
        agent, project, cycle = key
        members = self.sets.get(cycle, {}).get(project, {}).get(agent, [])
        return [self.runs[run_id] for run_id in members]

    def cycle_runs(self, cycle: str, project: str) -> Iterator[tuple[str, Judged]]:
        """Each agent's runs on a project in a cycle, judged."""
        for agent, run_ids in self.sets.get(cycle, {}).get(project, {}).items():
            for run_id in run_ids:
                yield agent, self.judge(self.runs[run_id])

    def sources_in_use(self) -> set[SourceType]:
        """Section 6a: the source types a published project's valid run has put in use."""
        tested = [
            (j.event.project.source_type, j.event.project.pool, j.event.project.id)
            for j in self.judged()
            if j.invalid_reason is None
        ]
        return {row.source_type for row in source_table(tested) if row.status == "in_use"}

    def under_review(self, cycle: str) -> set[str]:
        """Section 15, for every project of a cycle at once."""
        in_use = self.sources_in_use()
        return {p for p in self.sets.get(cycle, {}) if self._under_review_in(cycle, p, in_use)}

    def _under_review_in(self, cycle: str, project: str, in_use: set[SourceType]) -> bool:
        """A `project` finding settles the cycle; runs an `environment` finding voided no
        longer count; a source type not started counts nowhere (section 6a)."""
        if any(r.finding == "project" for r in self.reviews.get(project, {}).get(cycle, [])):
            return False
        by_agent: dict[str, list[Outcome]] = defaultdict(list)
        for agent, judged in self.cycle_runs(cycle, project):
            if judged.event.project.source_type not in in_use:
                return False
            if judged.outcome is not None:
                by_agent[agent].append(judged.outcome)
        return is_under_review(by_agent, None)

    def failed_runs(self, cycle: str, project: str) -> list[str]:
        """The valid runs of a cycle on a project, none of them a pass (it is under review)."""
        return [j.event.run_id for _, j in self.cycle_runs(cycle, project) if j.outcome]


def set_key(run: RunRecorded) -> SetKey:
    return (run.agent.id, run.project.id, run.cycle)


class MethodologyProjection:
    name = "methodology.v2"
    model_type = Methodology

    def initial(self) -> Methodology:
        return Methodology()

    def apply(self, model: Methodology, recorded: RecordedEvent) -> Methodology:
        position = recorded.position
        match recorded.event:
            case EditionDrafted() as edition:
                model.editions[edition.version] = Edition(position=position, event=edition)
            case RunRecorded(run_id=run_id) as run:
                model.runs[run_id] = Run(position=position, event=run)
                agent, project, cycle = set_key(run)
                sets = model.sets.setdefault(cycle, {}).setdefault(project, {})
                sets.setdefault(agent, []).append(run_id)
            case ProjectReviewed() as review:
                _review(model, review.project_id, review.cycle, position, review)
            case ProjectReviewCleared() as legacy:
                for cycle, projects in model.sets.items():
                    if legacy.project_id in projects:
                        _review(model, legacy.project_id, cycle, position, legacy)
            case RunVoided(run_id=run_id, reason=reason):
                model.voided[run_id] = Noted(position=position, reason=reason)
            case EvidenceTransformed() as step:
                copy = _copy(model, step.run_id, step.kind, step.input_sha256)
                copy.served_sha256 = step.output_sha256
                if step.transform == redaction.NAME:
                    copy.stored_sha256 = step.output_sha256
                copy.transforms.append(f"{step.transform}@{step.version}")
                for name, count in step.counts.items():
                    copy.counts[name] = copy.counts.get(name, 0) + count
                copy.positions.append(position)
            case RecordingWithheld() as withheld:
                copy = _copy(model, withheld.run_id, withheld.kind, withheld.input_sha256)
                copy.withheld, copy.served_sha256 = withheld.reason, None
                copy.positions.append(position)
            case RerunRequested(run_id=run_id, reason=reason):
                model.reruns[run_id] = Noted(position=position, reason=reason)
        return model


def _review(
    model: Methodology,
    project: str,
    cycle: str,
    position: int,
    review: ProjectReviewed | ProjectReviewCleared,
) -> None:
    finding: Finding = review.finding if isinstance(review, ProjectReviewed) else "project"
    model.reviews.setdefault(project, {}).setdefault(cycle, []).append(
        Review(position=position, finding=finding, reviewer=review.reviewer, note=review.note)
    )


def _copy(model: Methodology, run_id: str, kind: str, raw_sha256: str) -> EvidenceCopy:
    copies = model.evidence.setdefault(run_id, {})
    if kind not in copies:
        copies[kind] = EvidenceCopy(raw_sha256=raw_sha256)
    return copies[kind]
