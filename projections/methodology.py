"""The Argusic methodology folded from the ledger: editions, runs and reviews, from which every
read model (leaderboard, project, run, editions, sources) is a pure view."""

from __future__ import annotations

from datetime import date

import msgspec

from domain.editions import version_key
from domain.events import EditionDrafted, ProjectReviewCleared, RunRecorded
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


class Methodology(msgspec.Struct, kw_only=True):
    editions: dict[str, Edition] = msgspec.field(default_factory=dict)
    runs: dict[str, Run] = msgspec.field(default_factory=dict)
    """Run id: the run, in ledger order (a run is recorded once, so arrival order holds)."""
    last_review: dict[str, int] = msgspec.field(default_factory=dict)
    """Project id: the position of its latest review clearance."""

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
        return model
