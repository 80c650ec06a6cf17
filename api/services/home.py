"""The home page's document: the cycles, the current leaderboard and the head of the SI-IQ
index, each answered by the same query as its own page."""

from __future__ import annotations

import msgspec

from api.services.queries import MethodologyQueries, SiiqQueries
from domain.siiq.attributions import Attribution
from domain.siiq.index import ModelEntry
from projections.views.cycles import CycleRow
from projections.views.leaderboard import LeaderboardView

SIIQ_SHOWN = 5
"""How many ranked models the home page lists (the index page lists them all)."""


class SiiqHead(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    accepted: bool
    ranked: int
    scored: int
    top: list[ModelEntry]
    """The first ranked models of the index, as the index lists them."""
    attributions: list[Attribution] = []
    """SI-IQ section 10: what the index's sources require, on every page showing its numbers."""


class HomeView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    cycles: list[CycleRow]
    leaderboard: LeaderboardView | None
    """The current (latest) cycle's leaderboard."""
    siiq: SiiqHead


def home(methodology: MethodologyQueries, siiq: SiiqQueries) -> HomeView:
    cycles = methodology.cycles()
    board = methodology.leaderboard(cycles.current, cycles.as_of) if cycles.current else None
    index = siiq.index()
    ranked = [m for m in index.models if m.ranked]
    return HomeView(
        as_of=cycles.as_of,
        cycles=cycles.cycles,
        leaderboard=board,
        siiq=SiiqHead(
            version=index.version,
            accepted=index.calibration.accepted,
            ranked=len(ranked),
            scored=len(index.models),
            top=ranked[:SIIQ_SHOWN],
            attributions=index.attributions,
        ),
    )
