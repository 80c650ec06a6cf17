"""The source-type table, read from the ledger (methodology section 6a)."""

from __future__ import annotations

import msgspec

from domain.events import SourceType
from domain.source_types import Status
from domain.state.methodology import Methodology
from projections.views.approved import Approved


class SourceRowView(msgspec.Struct, frozen=True, kw_only=True):
    source_type: SourceType
    status: Status
    projects_tested: int


class SourcesView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    sources: list[SourceRowView]
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""


def sources_view(state: Methodology, as_of: int) -> SourcesView:
    rows = [
        SourceRowView(source_type=s, status=st, projects_tested=n)
        for s, st, n in state.source_rows()
    ]
    return SourcesView(as_of=as_of, sources=rows)
