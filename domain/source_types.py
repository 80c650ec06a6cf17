"""The source-type table (methodology section 6a)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple, get_args

from domain.events import Pool, SourceType

SOURCE_TYPES: tuple[SourceType, ...] = get_args(SourceType)
Status = Literal["in_use", "declared_not_started"]


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


VERIFIED_CLAIMS: dict[SourceType, str] = {
    "huggingface_model": "the documented snippet produced output"
}
"""Section 6a: what a pass verifies, where it is not the product as a whole."""


def verified_claim(source_type: SourceType) -> str:
    """Methodology section 6a: for a Hugging Face model the verified behaviour is "the
    documented snippet produced output", never "the product works"; the run page says which,
    in those words."""
    return VERIFIED_CLAIMS.get(source_type, "the product works")
