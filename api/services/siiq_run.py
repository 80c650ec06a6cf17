"""One `siiq update` (SI-IQ section 8): the state it read, the time it runs at, the events it
decides in order, and what it reports. The steps are in `siiq_source_guards`, `siiq_values`,
`siiq_holds` and `siiq_calibrations`; `siiq_update` runs them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import msgspec

from api.services.ports import CrossChecking
from api.services.queries import SiiqQueries
from api.services.siiq_publication import PublishReport
from api.services.sources import SourcesQueries
from domain.events import (
    CrossCheck,
    DomainEvent,
    OperatorNotified,
    PublishedValue,
    RevisionObserved,
    value_key,
)
from domain.siiq.benchmark_sources import BENCHMARKS
from domain.siiq.guards import Seen
from domain.siiq.index import IndexDocument, build_index
from domain.siiq.intake import Intake
from domain.siiq.records import CalibrationSummary
from ledger.ledger import Ledger
from projections.siiq import Guards, Siiq
from projections.siiq_sources import current_intake


class UpdateReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq update --json`: what one update did."""

    calibrated: bool
    reason: str | None
    inputs: dict[str, str]
    calibration: CalibrationSummary | None
    halted: bool = False
    published: int = 0
    removed: int = 0
    held: list[str] = []
    confirmed: list[str] = []
    frozen: list[str] = []
    kept: list[str] = []
    notices: list[str] = []
    publication: PublishReport | None = None


class Run:
    """One update: the state it read, the time it runs at, and the events it decides, in order."""

    def __init__(self, ledger: Ledger, now: datetime, checker: CrossChecking | None) -> None:
        self.ledger = ledger
        self.now = now
        self.checker = checker
        self.checks: list[CrossCheck] = []
        """Every number the checker re-read in this update, with its answer (section 8)."""
        self.sources = SourcesQueries(ledger).latest()
        self.queries = SiiqQueries(ledger)
        self.siiq: Siiq = self.queries.reader.latest()
        self.guards: Guards = self.siiq.guards
        self.events: list[DomainEvent] = []
        self.later: list[DomainEvent] = []
        """Calibration events that follow the published values (a revision's)."""
        self.publish: dict[str, PublishedValue] = {}
        self.removed: set[str] = set()
        self.purged: set[str] = set()
        """Published values whose source name now matches another model (section 8)."""
        self.correction = False
        self.observed: dict[str, tuple[Seen, PublishedValue | None]] = {}
        self.revised: dict[str, RevisionObserved] = {}
        self.frozen_now: set[str] = set()
        self.snapshot = ""
        """Epoch AI's snapshot in use (the index's main source)."""
        self.used: dict[str, str] = {}
        """Each source's snapshot in use."""
        self._candidates: dict[str, PublishedValue] | None = None
        self._intake: tuple[Intake | None] | None = None
        self.report = UpdateReport(calibrated=False, reason=None, inputs={}, calibration=None)

    def snapshot_for(self, benchmark: str) -> str:
        """Section 8: the snapshot of the source a benchmark is read from: only that source's
        later snapshot confirms its held values (another source's update is not one)."""
        source = BENCHMARKS.get(benchmark)
        return self.used.get(source.source, self.snapshot) if source else self.snapshot

    def note(self, **changes: object) -> None:
        self.report = msgspec.structs.replace(self.report, **changes)

    def candidates(self) -> dict[str, PublishedValue]:
        """The values Epoch AI's current export gives, the best row per result (decision A1)."""
        if self._candidates is None:
            intake = self.intake()
            found: dict[str, PublishedValue] = {}
            for result, line in zip(
                intake.results if intake else [], intake.evidence if intake else [], strict=True
            ):
                key = value_key(result.model, result.benchmark)
                if key not in found or result.score > found[key].result.score:
                    found[key] = PublishedValue(
                        result=result,
                        row=line.row,
                        url=line.url,
                        sha256=line.sha256,
                        source=line.source,
                        file=line.file,
                        columns=list(line.row),
                    )
            self._candidates = found
        return self._candidates

    def intake(self) -> Intake | None:
        """The current Epoch AI export's inputs, read once a run."""
        if self._intake is None:
            self._intake = (current_intake(self.sources),)
        return self._intake[0]

    def published(self) -> dict[str, PublishedValue]:
        return self.guards.values

    def publish_value(self, value: PublishedValue) -> None:
        """A value goes into this update's ValuesPublished (a changed one is a correction)."""
        if value.key in self.published():
            self.correction = True
        self.publish[value.key] = value

    def notify(self, subject: str, message: str) -> None:
        """Section 8: the operator is told."""
        self.events.append(OperatorNotified(at=self.now, subject=subject, message=message))
        self.note(notices=[*self.report.notices, message])

    def index(self, values: Mapping[str, PublishedValue]) -> IndexDocument | None:
        """These values scored with the calibration in force (None without one)."""
        calibration = self.siiq.in_force.calibration if self.siiq.in_force else None
        if calibration is None:
            return None
        return build_index([v.result for v in values.values()], calibration)
