"""Environment quality control (methodology section 15)."""

from __future__ import annotations

from collections.abc import Iterable

from domain.errors import Rejected
from domain.events import InputRecord, ProjectReviewCleared, Text
from domain.scoring import Outcome, passed


def is_under_review(outcomes_since_last_review: Iterable[Outcome]) -> bool:
    """Methodology section 15: a project that failed with every agent that attempted it is
    under review, and out of scoring, until a person reviews it; only the valid attempts
    since the last review count."""
    seen = False
    for result in outcomes_since_last_review:
        if passed(result):
            return False
        seen = True
    return seen


class ReviewRecord(InputRecord, frozen=True, tag="review"):
    """Input: a person's review of a project under review."""

    project: Text
    reviewer: Text
    note: str = ""


def clear_review(record: ReviewRecord, under_review: bool) -> list[ProjectReviewCleared]:
    """Methodology section 15: a review clears a project that is under review."""
    if not under_review:
        raise Rejected("section 15", f"project {record.project} is not under review")
    return [
        ProjectReviewCleared(project_id=record.project, reviewer=record.reviewer, note=record.note)
    ]
