"""`siiq update`: from the latest snapshots to a published index, through SI-IQ section 8's
guards (every transition an event) and section 3's and 11's calibrations and versions.

One run, at an injected time: halt when the checker is unset or down; per source, keep its last
data on a format change or a sudden loss of rows (the shrunk-file rule lets a smaller file in
after 24 hours); for Epoch AI's export, the values the index reads: definitions and revisions
freeze a benchmark, new and changed numbers are cross-checked, then published or held; held
values are observed in each new snapshot until one confirms them; deletions are removed after
six hours; a revision moves in one step with a recalibration; notices after 3 and 7 days; the
first calibration and the monthly one; then the publication (`publish`).
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from api.services.ports import CrossChecking
from api.services.siiq_calibrations import calibrations, revisions
from api.services.siiq_holds import HoldsReport, confirm_holds, holds_report
from api.services.siiq_publication import SiteCheck, publish_inputs, publish_siiq
from api.services.siiq_run import Run, UpdateReport
from api.services.siiq_source_guards import snapshots, source_guards
from api.services.siiq_values import check_values, due_removals, missing_values
from domain.events import (
    DomainEvent,
    OperatorNotified,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    ValuesPublished,
)
from domain.siiq.benchmark_sources import INDEX_SOURCES
from domain.siiq.crosscheck import CrossCheckUnavailable
from domain.siiq.matching import EPOCH
from ledger.ledger import Ledger

__all__ = [
    "NO_DATA",
    "HoldsReport",
    "UpdateReport",
    "holds_report",
    "publish_inputs",
    "update_siiq",
]

NO_DATA = "no good Epoch AI snapshot yet: run `argusic sources fetch` first"
NO_CHECKER = "no cross-check service is configured (ARGUSIC_CROSSCHECK_URL)"
NO_FAMILY = (
    "the cross-check's model family is not configured (ARGUSIC_CROSSCHECK_FAMILY): section 8 "
    "needs a checker of another family than the model whose number it reads"
)


def update_siiq(
    ledger: Ledger, checker: CrossChecking | None, now: datetime, site: SiteCheck | None = None
) -> UpdateReport:
    """Section 8, one update over the latest snapshots (see the module's docstring)."""
    run = Run(ledger, now, checker)
    if checker is None:
        return _halt(run, NO_CHECKER)
    if not checker.family.strip():
        return _halt(run, NO_FAMILY)
    current = snapshots(run.sources)
    if EPOCH not in current:
        return msgspec.structs.replace(run.report, reason=NO_DATA)
    used, uses = source_guards(run, current)
    run.snapshot, run.used = used[EPOCH], used
    new_epoch = any(u.source in INDEX_SOURCES for u in uses) or run.guards.recheck
    try:
        if new_epoch:
            check_values(run)
        due_removals(run)
        confirm_holds(run)
    except CrossCheckUnavailable as down:
        return _halt(run, str(down))
    revisions(run)
    intake = run.intake() if new_epoch else None
    ran = SiiqUpdateRan(
        at=now,
        snapshots=used,
        checker=checker.name,
        checks=run.checks,
        used=uses,
        definitions=intake.benchmarks if intake else [],
        missing=sorted(missing_values(run)) if new_epoch else None,
    )
    events = [ran, *run.events]
    if run.publish or run.removed or run.purged:
        events.append(
            ValuesPublished(
                at=now,
                values=[run.publish[k] for k in sorted(run.publish)],
                removed=sorted(run.removed - run.purged),
                correction=run.correction or bool(run.purged),
                purged=sorted(run.purged),
            )
        )
    ledger.append(ledger.next_versions([*events, *run.later]))
    calibrations(run)
    publication = publish_siiq(ledger, now, run.queries, site)
    return msgspec.structs.replace(
        run.report,
        published=len(run.publish),
        removed=len(run.removed | run.purged),
        frozen=sorted(run.frozen_now),
        publication=publication,
    )


def _halt(run: Run, reason: str) -> UpdateReport:
    """Section 8: the whole update stops and the previous version stays online; the operator
    is told once for each halt."""
    events: list[DomainEvent] = [SiiqUpdateHalted(at=run.now, reason=reason)]
    if run.guards.halted is None:
        events.append(OperatorNotified(at=run.now, subject="update", message=f"halted: {reason}"))
    run.ledger.append(run.ledger.next_versions(events))
    return msgspec.structs.replace(run.report, halted=True, reason=reason)
