"""The changelog editions: drafted and effective since (methodology section 20)."""

from __future__ import annotations

from datetime import date

import msgspec

from domain.editions import effective_since
from projections.methodology import Methodology


class EditionRow(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    drafted: date
    decided: date | None
    """Section 20: the day the rules were decided, where the changelog gives it apart."""
    effective_since: date | None
    differs_from_drafted: bool
    summary: str


class EditionsView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    editions: list[EditionRow]


def editions_view(state: Methodology, as_of: int) -> EditionsView:
    started = [(r.event.edition, r.event.started_at.date()) for r in state.runs.values()]
    rows = []
    for edition in (e.event for e in state.ordered_editions()):
        since = effective_since(edition.version, started)
        rows.append(
            EditionRow(
                version=edition.version,
                drafted=edition.drafted,
                decided=edition.decided,
                effective_since=since,
                differs_from_drafted=since is not None and since != edition.drafted,
                summary=edition.summary,
            )
        )
    return EditionsView(as_of=as_of, editions=rows)
