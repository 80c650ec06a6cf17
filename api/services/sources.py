"""`sources fetch`: read every configured SI-IQ source address, archive what came, and record
what changed (SI-IQ section 8); and what the sources' documents answer (/status.json's
sources, /data/evidence.jsonl), as of any position."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

from api.services.ports import SourceReading
from api.services.reader import ProjectionReader
from domain.errors import InvalidInput
from domain.events import SourceTableRecorded, streams
from domain.siiq.intake import Intake
from domain.siiq.snapshots import Answer, Status, snapshot_decision
from ledger.ledger import Ledger
from projections.siiq_sources import (
    SiiqSourcesProjection,
    Sources,
    StatusDocument,
    current_intake,
    evidence_jsonl,
    status_document,
)


class FetchRow(msgspec.Struct, frozen=True, kw_only=True):
    source: str
    url: str
    status: Status
    sha256: str | None
    reason: str | None


class FetchReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic sources fetch --json` (ARCHITECTURE.md, Wave 2 JSON outputs)."""

    sources: list[FetchRow]


class SourcesQueries:
    """The sources' state and documents, as of any position, or, `published` given, as of
    an approved one (the latest by default): what `published` makes of the position asked."""

    def __init__(
        self, ledger: Ledger, published: Callable[[int | None], int] | None = None
    ) -> None:
        self.reader = ProjectionReader(ledger, SiiqSourcesProjection())
        self.published = published

    def _as_of(self, as_of: int | None) -> int | None:
        return as_of if self.published is None else self.published(as_of)

    def latest(self) -> Sources:
        return self.reader.latest()

    def status(self, as_of: int | None = None) -> StatusDocument:
        return self.reader.answer(("status",), status_document, self._as_of(as_of))

    def evidence(self, as_of: int | None = None) -> bytes:
        view = lambda state, _: evidence_jsonl(state)  # noqa: E731
        return self.reader.answer(("evidence",), view, self._as_of(as_of))

    def intake(self, as_of: int | None = None) -> Intake | None:
        return self.reader.answer(("intake",), lambda state, _: current_intake(state), as_of)


def fetch_sources(
    ledger: Ledger,
    reader: SourceReading,
    sources: Mapping[str, Sequence[str]],
    only: str | None = None,
) -> FetchReport:
    """Section 8: each address read once, conditionally on its last good file; each answer's
    events (a new file with its new tables, a failure, a recovery) appended atomically."""
    if only is not None and only not in sources:
        configured = ", ".join(sorted(sources)) or "none"
        raise InvalidInput(f"source {only!r} is not configured (configured: {configured})")
    state = SourcesQueries(ledger).latest()
    known = set(state.tables)
    rows = []
    for source in sorted(sources):
        if only is not None and source != only:
            continue
        for address in sources[source]:
            held = state.addresses.get(streams.source_address(source, address))
            last, good = (held.last, held.good) if held else (None, None)
            answer = reader.read(
                source,
                address,
                good.etag if good else None,
                good.last_modified if good else None,
                good.sha256 if good else None,
            )
            decision = snapshot_decision(answer, last, good, known)
            if decision.events:
                ledger.append(ledger.next_versions(decision.events))
                known |= {e.stream for e in decision.events if isinstance(e, SourceTableRecorded)}
            rows.append(_row(answer, decision.status, good.sha256 if good else None))
    return FetchReport(sources=rows)


def _row(answer: Answer, status: Status, held: str | None) -> FetchRow:
    return FetchRow(
        source=answer.source,
        url=answer.url,
        status=status,
        sha256=answer.sha256 or (held if status == "unchanged" else None),
        reason=answer.failure,
    )
