"""The source-type table (methodology section 6a)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple, get_args

from domain.events import Pool, SourceType

SOURCE_TYPES: tuple[SourceType, ...] = get_args(SourceType)
Status = Literal["in_use", "declared_not_started"]
VerifiedBehaviour = Literal["the product works", "the documented snippet produced output"]


class SourceRow(NamedTuple):
    source_type: SourceType
    status: Status
    projects_tested: int


def source_table(tested: Iterable[tuple[SourceType, Pool, str]]) -> list[SourceRow]:
    """Methodology section 6a: a source is in use, with its count of projects tested, from
    the day a published project of that type has a recorded run with its evidence;
    until then it is declared and not started."""
    projects: dict[SourceType, set[str]] = {source: set() for source in SOURCE_TYPES}
    for source, pool, project in tested:
        if pool == "public":
            projects[source].add(project)
    return [
        SourceRow(
            source, "in_use" if projects[source] else "declared_not_started", len(projects[source])
        )
        for source in SOURCE_TYPES
    ]


def verified_behaviour(source: SourceType) -> VerifiedBehaviour:
    """Methodology section 6a: a model card documents a snippet, not an application, so what a
    pass of a Hugging Face model verifies is "the documented snippet produced output", never
    "the product works"; the run page says which of the two, in those words."""
    if source == "huggingface_model":
        return "the documented snippet produced output"
    return "the product works"
