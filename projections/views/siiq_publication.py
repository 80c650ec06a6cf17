"""SI-IQ's published documents besides the index (SI-IQ sections 8, 10 and 11), each the same
bytes for the same position: /data/evidence.jsonl (every input row as it appeared, with its
file's address and SHA-256), /data/history.json (each day's archived inputs rescored with the
parameters in force) and /status.json (sources, failures, holds, freezes, halts, notices)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain.siiq import METHOD_VERSION
from domain.siiq.attributions import Attribution, attribution_text, attributions
from domain.siiq.index import HistoryPoint, build_index
from domain.siiq.records import Result
from domain.siiq.versions import major
from projections.siiq import Siiq
from projections.siiq_sources import (
    EvidenceFileLine,
    Sources,
    StatusDocument,
    evidence_jsonl,
    refused_status,
    status_document,
)


def guarded_evidence(sources: Sources, siiq: Siiq) -> bytes:
    """/data/evidence.jsonl: the published values' rows once the updates publish them (before
    that, the current export's, as fetched)."""
    if not siiq.guards.values:
        return evidence_jsonl(sources)
    lines = []
    for key in sorted(siiq.guards.values):
        value = siiq.guards.values[key]
        line = EvidenceFileLine(
            model=value.result.model,
            benchmark=value.result.benchmark,
            value=value.result.score,
            row={c: value.row[c] for c in value.columns} if value.columns else value.row,
            url=value.url,
            sha256=value.sha256,
            source=value.source,
            file=value.file,
            attribution=attribution_text(value.source),
            version=siiq.version,
        )
        lines.append(msgspec.json.encode(line) + b"\n")
    return b"".join(lines)


class HistoryScore(msgspec.Struct, frozen=True, kw_only=True):
    model: str
    si_iq: int
    si_iq_low: int
    si_iq_high: int
    si_iq_full: float


class HistoryDay(msgspec.Struct, frozen=True, kw_only=True):
    """A day's archived inputs (as published at the day's end) and their scores with the
    parameters in force now, so each point can be recomputed with section 5's formula."""

    date: str
    inputs: list[Result]
    scores: list[HistoryScore]


class HistoryDocument(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    calibration_version: str | None
    days: list[HistoryDay]
    attributions: list[Attribution]


def history_document(siiq: Siiq, _: int) -> HistoryDocument:
    """/data/history.json (section 11): history curves always rescore each day's archived
    inputs with the current parameters, so they never mix methods."""
    calibration = siiq.in_force.calibration if siiq.in_force else None
    days = []
    for day in sorted(siiq.guards.days):
        inputs = [siiq.guards.days[day][k] for k in sorted(siiq.guards.days[day])]
        scores = []
        if calibration is not None:
            scores = [
                HistoryScore(
                    model=m.slug,
                    si_iq=m.si_iq,
                    si_iq_low=m.si_iq_low,
                    si_iq_high=m.si_iq_high,
                    si_iq_full=m.si_iq_full,
                )
                for m in build_index(inputs, calibration).models
            ]
        days.append(HistoryDay(date=day, inputs=inputs, scores=scores))
    return HistoryDocument(
        version=siiq.version,
        calibration_version=None if calibration is None else calibration.version,
        days=days,
        attributions=attributions(v.source for v in siiq.guards.values.values()),
    )


def model_history(history: HistoryDocument, slug: str) -> list[HistoryPoint]:
    """A model's points of the history curves, oldest first (its model page's plot)."""
    return [
        HistoryPoint(date=day.date, si_iq=s.si_iq, si_iq_low=s.si_iq_low, si_iq_high=s.si_iq_high)
        for day in history.days
        for s in day.scores
        if s.model == slug
    ]


class HoldRow(msgspec.Struct, frozen=True, kw_only=True):
    hold: str
    model: str
    benchmark: str
    value: float
    published: float | None
    reason: str
    since: datetime
    latest: float | None
    notified: bool


class FreezeRow(msgspec.Struct, frozen=True, kw_only=True):
    benchmark: str
    kind: str
    reason: str
    since: datetime
    snapshots: int
    approved: bool
    notified: bool


class FailureRow(msgspec.Struct, frozen=True, kw_only=True):
    """Section 8: a source whose last good data is kept (a format change, lost rows)."""

    source: str
    kind: str
    reason: str
    since: datetime
    snapshot: str


class NoticeRow(msgspec.Struct, frozen=True, kw_only=True):
    at: datetime
    subject: str
    message: str


class PublicationRow(msgspec.Struct, frozen=True, kw_only=True):
    halted: bool
    reason: str | None
    models: list[str]
    since: datetime | None
    last_position: int | None


def holds(siiq: Siiq) -> list[HoldRow]:
    """Every held value, oldest first (section 8; `siiq holds`)."""
    rows = [
        HoldRow(
            hold=h.held.hold,
            model=h.held.model,
            benchmark=h.held.benchmark,
            value=h.held.value,
            published=h.held.published,
            reason=h.held.reason,
            since=h.held.since,
            latest=None if h.latest is None else h.latest.result.score,
            notified=h.notified,
        )
        for h in siiq.guards.holds.values()
    ]
    return sorted(rows, key=lambda r: (r.since, r.hold))


def notices(siiq: Siiq) -> list[NoticeRow]:
    return [NoticeRow(at=n.at, subject=n.subject, message=n.message) for n in siiq.guards.notices]


def siiq_status(sources: Sources, siiq: Siiq, as_of: int) -> StatusDocument:
    """/status.json: the sources' state with what the guards decided."""
    guards = siiq.guards
    halt = guards.publication_halt
    update = guards.halted
    base = status_document(sources, as_of)
    return msgspec.structs.replace(
        base,
        method_version=siiq.version,
        sources=[
            refused_status(sources, s, guards.used[s.source].snapshot, failed.reason)
            if (failed := guards.failures.get(s.source)) and s.source in guards.used
            else s
            for s in base.sources
        ],
        holds=holds(siiq),
        frozen=sorted(guards.frozen),
        freezes=[
            FreezeRow(
                benchmark=name,
                kind=f.frozen.kind,
                reason=f.frozen.reason,
                since=f.frozen.at,
                snapshots=len(f.observed),
                approved=f.approved is not None,
                notified=f.notified,
            )
            for name, f in sorted(guards.frozen.items())
        ],
        failures=[
            FailureRow(
                source=k.source, kind=k.kind, reason=k.reason, since=k.at, snapshot=k.snapshot
            )
            for _, k in sorted(guards.failures.items())
        ],
        halted=update is not None or halt is not None,
        reason=(update.reason if update else None) or (halt.reason if halt else None),
        halts=[
            *([NoticeRow(at=update.at, subject="update", message=update.reason)] if update else []),
            *([NoticeRow(at=halt.at, subject="publication", message=halt.reason)] if halt else []),
        ],
        publication=PublicationRow(
            halted=halt is not None,
            reason=halt.reason if halt else None,
            models=halt.models if halt else [],
            since=halt.at if halt else None,
            last_position=guards.publications[-1] if guards.publications else None,
        ),
        notifications=notices(siiq),
        last_update=guards.last_run,
    )


def archived_indexes(siiq: Siiq, position: int) -> dict[int, int]:
    """SI-IQ sections 3 and 11, /data/archive/: for each earlier major version whose index was
    served, the position its last served index is as of, as of `position`. A major version's
    index is served from its first publication (before any publication, from its calibration
    on); the last one of the version before is the one served just before."""
    publications = [p for p in siiq.guards.publications if p <= position]
    starts = sorted((start, int(m)) for m, start in siiq.majors.items() if start <= position)
    found: dict[int, int] = {}
    for start, _ in starts:
        last = _last_before(publications, start)
        if last is not None and _major_at(starts, last) < _major_at(starts, start):
            found[_major_at(starts, last)] = last
    return found


def _last_before(publications: list[int], start: int) -> int | None:
    """The position the documents served just before those of a version begun at `start` are
    as of; None while they are still served."""
    if not publications or publications[0] > start:
        return start - 1
    later = [p for p in publications if p - 1 >= start]
    if not later:
        return None
    return max(p for p in publications if p < later[0]) - 1


def _major_at(starts: list[tuple[int, int]], position: int) -> int:
    return max((m for start, m in starts if start <= position), default=major(METHOD_VERSION))
