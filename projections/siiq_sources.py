"""SI-IQ's sources folded from the ledger (SI-IQ sections 1, 8 and 10): each configured address's
last file and last good file, the rows of the tables the index reads, the Epoch exports seen
(for the pinned reference names) and the approved aliases; and the documents made of them:
the `sources` part of /status.json and /data/evidence.jsonl, byte for byte the same for the
same position."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.events import (
    AliasApproved,
    SourceSnapshotRecorded,
    SourceTableRecorded,
    streams,
)
from domain.siiq import METHOD_VERSION
from domain.siiq.attributions import Attribution, attribution, attributions
from domain.siiq.benchmark_sources import BY_TABLE, GROUP_COLUMNS, GROUPS_TABLE, INDEX_SOURCES
from domain.siiq.intake import EvidenceLine, Intake, SnapshotFile, TableKey, index_intake
from domain.siiq.matching import EPOCH, Alias, Version, epoch_versions
from domain.siiq.reference_group import REFERENCE_GROUP
from domain.state.authority import authorized, fold_authority
from domain.state.records import Authority
from ledger.actions import SIGNATURES
from ledger.ledger import RecordedEvent


class AddressState(msgspec.Struct, kw_only=True):
    source: str
    address: str
    last: SourceSnapshotRecorded
    good: SourceSnapshotRecorded | None = None
    files: dict[str, SourceSnapshotRecorded] = {}
    """Every good file of the address by SHA-256: the one whose data the guards keep when they
    refuse a newer one (section 8) is named in /status.json."""


class Sources(msgspec.Struct, kw_only=True):
    addresses: dict[str, AddressState] = {}
    tables: dict[str, SourceTableRecorded] = {}
    epoch_groups: list[str] = []
    aliases: list[Alias] = []
    authority: Authority = msgspec.field(default_factory=Authority)
    """Who may approve an alias (ARCHITECTURE.md, "Authority")."""


class SiiqSourcesProjection:
    name = "siiq-sources.v3"
    model_type = Sources

    def initial(self) -> Sources:
        return Sources()

    def apply(self, model: Sources, recorded: RecordedEvent) -> Sources:
        match recorded.event:
            case SourceSnapshotRecorded() as snapshot:
                before = model.addresses.get(snapshot.stream)
                good = snapshot if snapshot.ok else (before.good if before else None)
                files = dict(before.files) if before else {}
                if snapshot.ok:
                    files[snapshot.sha256] = snapshot
                model.addresses[snapshot.stream] = AddressState(
                    source=snapshot.source,
                    address=snapshot.address,
                    last=snapshot,
                    good=good,
                    files=files,
                )
                key = groups_table(snapshot)
                if key is not None and key not in model.epoch_groups:
                    model.epoch_groups.append(key)
            case SourceTableRecorded() as table:
                model.tables[table.stream] = table
            case _:
                _acted(model, recorded)
        return model


def _acted(model: Sources, recorded: RecordedEvent) -> None:
    """Who may decide, and an alias approved (SI-IQ section 1) by an action with authority."""
    authority, position, event = model.authority, recorded.position, recorded.event
    if fold_authority(authority, position, event, recorded.recorded_at, SIGNATURES):
        return
    match event:
        case AliasApproved() as approved if authorized(authority, position, approved):
            model.aliases.append(
                Alias(
                    source=approved.source,
                    name=approved.name,
                    group=approved.group,
                    justification=approved.justification,
                )
            )


def groups_table(snapshot: SourceSnapshotRecorded) -> str | None:
    """The stream of the groups table of a good Epoch snapshot (None for any other)."""
    if snapshot.source != EPOCH or not snapshot.ok:
        return None
    found = [t for t in snapshot.tables if t.name == GROUPS_TABLE]
    return streams.source_table(EPOCH, GROUPS_TABLE, found[0].sha256) if found else None


def table_rows(model: Sources, source: str, name: str, sha256: str) -> list[dict[str, object]]:
    """A recorded table's rows, each a mapping in the source's own column order."""
    table = model.tables.get(streams.source_table(source, name, sha256))
    if table is None:
        return []
    return [dict(zip(table.columns, cells, strict=True)) for cells in table.rows]


def good_snapshots(model: Sources, source: str) -> list[SourceSnapshotRecorded]:
    """The last good file of each of the source's addresses, in address order."""
    found = [a.good for a in model.addresses.values() if a.source == source and a.good]
    return sorted(found, key=lambda s: s.address)


def epoch_exports(model: Sources, current: str | None) -> list[list[Version]]:
    """Every Epoch export seen, oldest first, the current one last (section 1: a reference
    name is pinned to the newest export that still used it as a group)."""
    order = [key for key in model.epoch_groups if key != current]
    order += [current] if current is not None else []
    exports = []
    for key in order:
        table = model.tables.get(key)
        if table is not None:
            rows = [dict(zip(table.columns, cells, strict=True)) for cells in table.rows]
            exports.append(epoch_versions(rows, GROUP_COLUMNS))
    return exports


def current_intake(model: Sources) -> Intake | None:
    """The index's inputs from the latest good data of every source a benchmark is read from,
    or None before there is any good Epoch data (its groups name the models)."""
    if not good_snapshots(model, EPOCH):
        return None
    tables: dict[TableKey, list[dict[str, object]]] = {}
    where: dict[TableKey, SnapshotFile] = {}
    current = None
    for source in sorted(INDEX_SOURCES):
        for snapshot in good_snapshots(model, source):
            for summary in snapshot.tables:
                key = (source, summary.name)
                if key in BY_TABLE or (source == EPOCH and summary.name == GROUPS_TABLE):
                    tables[key] = table_rows(model, source, summary.name, summary.sha256)
                    where[key] = SnapshotFile(url=snapshot.url, sha256=snapshot.sha256)
            current = groups_table(snapshot) or current
    exports = epoch_exports(model, current)
    return index_intake(exports, tables, where, model.aliases, REFERENCE_GROUP)


class EvidenceFileLine(msgspec.Struct, frozen=True, kw_only=True):
    """A line of /data/evidence.jsonl: the input row and where it came from, then (section 10)
    the attribution its source requires."""

    model: str
    benchmark: str
    value: float
    row: dict[str, object]
    url: str
    sha256: str
    source: str
    file: str
    attribution: str
    version: str = METHOD_VERSION
    """Section 11: the method's version, on every data file."""


def evidence_jsonl(model: Sources) -> bytes:
    """/data/evidence.jsonl (section 8): every input row as it appeared at its source, with its
    file's address and SHA-256, whether or not a calibration is in force."""
    intake = current_intake(model)
    lines = [] if intake is None else intake.evidence
    return b"".join(msgspec.json.encode(_with_attribution(line)) + b"\n" for line in lines)


def _with_attribution(line: EvidenceLine) -> EvidenceFileLine:
    return EvidenceFileLine(
        **msgspec.structs.asdict(line), attribution=attribution(line.source).text
    )


class LastSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    url: str
    sha256: str
    size: int
    fetched_at: datetime
    tables: int
    rows: int


class AddressStatus(msgspec.Struct, frozen=True, kw_only=True):
    address: str
    ok: bool
    failure: str | None
    last_checked_change: datetime
    last_snapshot: LastSnapshot | None


class SourceStatus(msgspec.Struct, frozen=True, kw_only=True):
    source: str
    ok: bool
    failure: str | None
    last_snapshot: LastSnapshot | None
    files: list[AddressStatus]
    attribution: str


class StatusDocument(msgspec.Struct, frozen=True, kw_only=True):
    """/status.json: the sources here; holds, freezes, failures, halts and notices are filled
    in from section 8's guards (`projections.views.siiq_publication.siiq_status`)."""

    as_of: int
    method_version: str
    sources: list[SourceStatus]
    holds: list[Any] = []
    frozen: list[str] = []
    halted: bool = False
    reason: str | None = None
    attributions: list[Attribution] = []
    freezes: list[Any] = []
    failures: list[Any] = []
    halts: list[Any] = []
    publication: Any = None
    notifications: list[Any] = []
    last_update: datetime | None = None


def sources_status(model: Sources) -> list[SourceStatus]:
    """Each source's last good file and its failure, if its last answer was one (section 8:
    its last good data stays in use)."""
    by_source: dict[str, list[AddressState]] = {}
    for state in model.addresses.values():
        by_source.setdefault(state.source, []).append(state)
    rows = []
    for source in sorted(by_source):
        files = [_address_status(s) for s in sorted(by_source[source], key=lambda s: s.address)]
        failures = [f"{f.address}: {f.failure}" for f in files if not f.ok]
        good = [f.last_snapshot for f in files if f.last_snapshot is not None]
        rows.append(
            SourceStatus(
                source=source,
                ok=not failures,
                failure="; ".join(failures) or None,
                last_snapshot=max(good, key=lambda s: (s.fetched_at, s.url), default=None),
                files=files,
                attribution=attribution(source).text,
            )
        )
    return rows


def _address_status(state: AddressState) -> AddressStatus:
    return AddressStatus(
        address=state.address,
        ok=state.last.ok,
        failure=state.last.failure,
        last_checked_change=state.last.fetched_at,
        last_snapshot=_last_snapshot(state.good),
    )


def _last_snapshot(good: SourceSnapshotRecorded | None) -> LastSnapshot | None:
    if good is None:
        return None
    return LastSnapshot(
        url=good.url,
        sha256=good.sha256,
        size=good.size,
        fetched_at=good.fetched_at,
        tables=len(good.tables),
        rows=sum(t.rows for t in good.tables),
    )


def refused_status(model: Sources, status: SourceStatus, kept: str, failure: str) -> SourceStatus:
    """Section 8: a source whose newer file an update refused (a format change, lost rows) is
    not ok, says why, and names the files whose data is kept (`kept`: their SHA-256s as the
    guards name a snapshot, `sha+sha~aliases:…`)."""
    shas = set(kept.split("~", 1)[0].split("+"))
    states = {s.address: s for s in model.addresses.values() if s.source == status.source}
    files = []
    for row in status.files:
        state = states.get(row.address)
        used = [f for sha, f in state.files.items() if sha in shas] if state else []
        latest = state.good.sha256 if state and state.good else None
        refused = bool(used) and latest != used[0].sha256
        files.append(
            msgspec.structs.replace(
                row, ok=False, failure=failure, last_snapshot=_last_snapshot(used[0])
            )
            if refused
            else row
        )
    good = [f.last_snapshot for f in files if f.last_snapshot is not None]
    return msgspec.structs.replace(
        status,
        ok=False,
        failure=failure,
        last_snapshot=max(good, key=lambda s: (s.fetched_at, s.url), default=None),
        files=files,
    )


def status_document(model: Sources, as_of: int) -> StatusDocument:
    status = sources_status(model)
    return StatusDocument(
        as_of=as_of,
        method_version=METHOD_VERSION,
        sources=status,
        attributions=attributions(s.source for s in status),
    )
