"""Every project with a recorded run: its verdict (section 11) and how many attempts it had,
so that every attempt is one link away whatever its outcome (section 13)."""

from __future__ import annotations

from collections import defaultdict

import msgspec

from domain.events import SourceType
from domain.state.methodology import Methodology
from domain.state.records import Judged
from domain.verdict import Verdict
from projections.views.project import project_verdict


class ProjectRow(msgspec.Struct, frozen=True, kw_only=True):
    project: str
    source_type: SourceType
    verdict: Verdict | None
    """None for a source type not started (section 6a)."""
    attempts: int
    valid_attempts: int
    under_review: bool


class ProjectsView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    projects: list[ProjectRow]


def projects_view(state: Methodology, as_of: int) -> ProjectsView:
    runs: dict[str, list[Judged]] = defaultdict(list)
    for judged in state.judged():
        runs[judged.event.project.id].append(judged)
    cycles = {j.event.cycle for attempts in runs.values() for j in attempts}
    under_review = set().union(*(state.under_review(cycle) for cycle in cycles))
    rows = [
        ProjectRow(
            project=project,
            source_type=attempts[-1].event.project.source_type,
            verdict=project_verdict(state, attempts),
            attempts=len(attempts),
            valid_attempts=sum(j.outcome is not None for j in attempts),
            under_review=project in under_review,
        )
        for project, attempts in sorted(runs.items())
    ]
    return ProjectsView(as_of=as_of, projects=rows)
