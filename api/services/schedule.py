"""`schedule --cycle C`: plan, from the ledger, every run a cycle needs (methodology section 7,
point 4, and section 11), under the edition in force; a second call adds nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from domain.editions import version_key
from domain.errors import NotFound, Rejected
from domain.runner.config import OrchestratorConfig
from domain.runner.schedule import plan_cycle
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection


class ScheduleReport(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    scheduled: list[str]


def schedule(
    ledger: Ledger, cycle_id: str, config: OrchestratorConfig, clock: Callable[[], datetime]
) -> ScheduleReport:
    """The cycle's runs not yet planned, appended at once."""
    state = ProjectionReader(ledger, MethodologyProjection()).latest()
    cycle = state.cycles.get(cycle_id)
    if cycle is None:
        raise NotFound(f"no cycle {cycle_id!r}: ingest its cycle record first")
    if not state.editions:
        raise Rejected("section 20", "no edition is recorded: the rules in force are unknown")
    edition = max(state.editions, key=version_key)
    runs = plan_cycle(
        cycle,
        state.agents,
        edition,
        known=RunBoard(ledger).refresh().runs,
        budgets=config.budgets,
        grace_seconds=config.sandbox.grace_seconds,
        now=clock(),
    )
    if runs:
        ledger.append(ledger.next_versions(runs))
    return ScheduleReport(cycle=cycle_id, scheduled=[r.run_id for r in runs])
