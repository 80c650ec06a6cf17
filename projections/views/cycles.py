"""The cycles the ledger holds runs of, oldest first: what the home page lists and where the
current leaderboard is."""

from __future__ import annotations

from collections import defaultdict

import msgspec

from domain.errors import NotFound
from domain.events import Pinned
from domain.pool import commitment_holds
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


class PoolEntry(msgspec.Struct, frozen=True, kw_only=True):
    project: str
    commit: str | None


class CycleView(msgspec.Struct, frozen=True, kw_only=True):
    """A cycle's pools (section 6, ARCHITECTURE.md "Project pool"): the public pool at its
    commits; the secret pool's commitment; the secret list, once the cycle is closed, with the
    commitment checked against it."""

    id: str
    as_of: int
    opens: str
    public_pool: list[PoolEntry]
    secret_commitment: str | None
    secret_pool: list[PoolEntry] | None
    commitment_verified: bool | None
    approved: Approved | None = None


def cycle_view(state: Methodology, as_of: int, *, cycle_id: str) -> CycleView:
    cycle = state.cycles.get(cycle_id)
    if cycle is None:
        raise NotFound(f"no cycle {cycle_id} as of position {as_of}")
    chosen = state.selections.get(cycle_id)
    closed = cycle_id in state.closed
    entries = {
        pool: sorted(
            (PoolEntry(project=p.id, commit=p.commit) for p in cycle.projects if p.pool == pool),
            key=lambda p: p.project,
        )
        for pool in ("public", "secret")
    }
    secret = entries["secret"] if closed else None
    verified = None
    if secret is not None and chosen is not None:
        revealed = [Pinned(project=p.project, commit=p.commit or "") for p in secret]
        verified = commitment_holds(revealed, chosen.salt, chosen.commitment)
    return CycleView(
        id=cycle_id,
        as_of=as_of,
        opens=cycle.opens.isoformat(),
        public_pool=entries["public"],
        secret_commitment=None if chosen is None else chosen.commitment,
        secret_pool=secret,
        commitment_verified=verified,
    )
