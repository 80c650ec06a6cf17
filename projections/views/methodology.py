"""The methodology page: the rules as the code applies them and the orchestrator is configured
(sections 7, 8, 10, 11, 15 and 17), the changelog's editions (section 20) and the source-type
table (section 6a), the last two read from the ledger as of one position."""

from __future__ import annotations

import msgspec

from domain.runner.config import OrchestratorConfig
from domain.state.methodology import Methodology
from projections.views.editions import EditionRow, editions_view
from projections.views.rules import Rules, rules
from projections.views.sources import SourceRowView, sources_view


class MethodologyView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    editions: list[EditionRow]
    sources: list[SourceRowView]
    rules: Rules | None = None
    """The rules in force; None only where no orchestrator configuration was given (a reader
    outside the server and the CLI)."""


def methodology_view(
    state: Methodology, as_of: int, config: OrchestratorConfig | None = None
) -> MethodologyView:
    editions = editions_view(state, as_of).editions
    return MethodologyView(
        as_of=as_of,
        editions=editions,
        sources=sources_view(state, as_of).sources,
        rules=None if config is None else rules([e.version for e in editions], config),
    )
