"""The source-type table, read from the ledger (methodology section 6a)."""

from __future__ import annotations

import msgspec

from domain.events import SourceType
from domain.source_types import Status, source_table
from projections.methodology import Methodology


class SourceRowView(msgspec.Struct, frozen=True, kw_only=True):
    source_type: SourceType
    status: Status
    projects_tested: int


class SourcesView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    sources: list[SourceRowView]


def sources_view(state: Methodology, as_of: int) -> SourcesView:
    tested = [
        (j.event.project.source_type, j.event.project.pool, j.event.project.id)
        for j in state.judged()
        if j.invalid_reason is None
    ]
    rows = [
        SourceRowView(source_type=s, status=st, projects_tested=n)
        for s, st, n in source_table(tested)
    ]
    return SourcesView(as_of=as_of, sources=rows)
