"""Changelog editions of the methodology (methodology section 20)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Annotated

import msgspec

from domain.errors import Rejected
from domain.events import EditionDrafted, InputRecord

Version = Annotated[str, msgspec.Meta(pattern=r"^\d+\.\d+$")]


class EditionRecord(InputRecord, frozen=True, tag="edition"):
    """Input: one edition of the changelog, as written down."""

    version: Version
    drafted: date
    summary: str
    decided: date | None = None


def version_key(version: str) -> tuple[int, ...]:
    """Section 20: editions are ordered by their number, 1.10 after 1.9."""
    return tuple(int(part) for part in version.split("."))


def draft_edition(record: EditionRecord, recorded: EditionDrafted | None) -> list[EditionDrafted]:
    """Section 20: an edition is written down once; the same record again changes nothing."""
    if record.decided is not None and record.decided > record.drafted:
        raise Rejected(
            "section 20", f"edition {record.version}: decided {record.decided} after it was drafted"
        )
    event = EditionDrafted(
        version=record.version,
        drafted=record.drafted,
        summary=record.summary,
        decided=record.decided,
    )
    if recorded is None:
        return [event]
    if recorded != event:
        raise Rejected("section 20", f"edition {record.version} is already recorded differently")
    return []


def effective_since(version: str, runs: Iterable[tuple[str, date]]) -> date | None:
    """Methodology section 20: the day the first run measured with the edition started,
    from the run records alone; None while no run has used it."""
    days = [day for edition, day in runs if edition == version]
    return min(days) if days else None
