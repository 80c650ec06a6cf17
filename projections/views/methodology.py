"""The methodology page: the changelog's editions (section 20) and the source-type table
(section 6a), both read from the ledger as of one position."""

from __future__ import annotations

import msgspec

from domain.state.methodology import Methodology
from projections.views.editions import EditionRow, editions_view
from projections.views.sources import SourceRowView, sources_view


class MethodologyView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    editions: list[EditionRow]
    sources: list[SourceRowView]


def methodology_view(state: Methodology, as_of: int) -> MethodologyView:
    return MethodologyView(
        as_of=as_of,
        editions=editions_view(state, as_of).editions,
        sources=sources_view(state, as_of).sources,
    )
