"""The cycles the ledger holds runs of, oldest first: what the home page lists and where the
current leaderboard is."""

from __future__ import annotations

from collections import defaultdict

import msgspec

from domain.errors import NotFound
from domain.state.figures import CycleFigure, cycle_figure
from domain.state.methodology import Methodology
from projections.views.approved import Approved


class CycleRow(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    runs: int
    agents: int
    projects: int


class CyclesView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    cycles: list[CycleRow]
    """Oldest first; cycle ids are dates (`2026-09`), so their order is the calendar's."""
    current: str | None
    """The latest cycle, whose leaderboard the home page shows."""


def cycles_view(state: Methodology, as_of: int) -> CyclesView:
    runs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for run in state.runs.values():
        runs[run.event.cycle].append((run.event.agent.id, run.event.project.id))
    rows = [
        CycleRow(
            cycle=cycle,
            runs=len(pairs),
            agents=len({agent for agent, _ in pairs}),
            projects=len({project for _, project in pairs}),
        )
        for cycle, pairs in sorted(runs.items())
    ]
    return CyclesView(as_of=as_of, cycles=rows, current=rows[-1].cycle if rows else None)


class CycleView(CycleFigure, frozen=True, kw_only=True):
    """`GET /cycles/{id}` (ARCHITECTURE.md "Project pool"): the figure, as of a position."""

    as_of: int
    approved: Approved | None = None


def cycle_view(state: Methodology, as_of: int, *, cycle_id: str) -> CycleView:
    try:
        figure = cycle_figure(state, cycle_id)
    except NotFound as e:
        raise NotFound(f"{e} as of position {as_of}") from e
    return CycleView(**msgspec.structs.asdict(figure), as_of=as_of)
