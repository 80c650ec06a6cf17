"""Facts of SI-IQ's updates (SI-IQ sections 8 and 11): what the guards decided between a new
snapshot and the published index, every transition one event, and each publication."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from domain.events import streams
from domain.events.base import Event, Text, Value
from domain.events.sources import TableSummary
from domain.siiq.records import Benchmark, Result


class PublishedValue(Value, frozen=True):
    """A value of the index's inputs with its evidence: the row as the source published it,
    the file's address and SHA-256 (section 8, /data/evidence.jsonl)."""

    result: Result
    row: dict[str, Any]
    url: str
    sha256: str
    source: str
    file: str
    columns: list[str] = msgspec.field(default_factory=list)
    """The row's columns in the source's order (the ledger's canonical JSON sorts keys)."""

    @property
    def key(self) -> str:
        return value_key(self.result.model, self.result.benchmark)


def value_key(model: str, benchmark: str) -> str:
    """A result's name across snapshots: its benchmark and model group."""
    return f"{benchmark}|{model}"


class CrossCheck(Value, frozen=True):
    """One number re-read in its source row by the checker (section 8)."""

    model: str
    benchmark: str
    value: float
    confirmed: bool
    answer: str
    checker: str = ""
    """The checker's model (recorded on each check since issue 29)."""
    family: str = ""
    """The checker's model family, which differs from the developer's of the model read."""


class SourceUsed(Value, frozen=True):
    """A source's snapshot the guards let in: the shape later snapshots are compared with (its
    tables, named `<address>#<table>`) and the share of rows the parser keeps (section 8)."""

    source: str
    snapshot: str
    tables: list[TableSummary]
    keep_ratio: float


class SiiqUpdateHalted(Event, frozen=True):
    """Section 8: the cross-check service is unset or down, so the whole update stopped and the
    previous version stays online."""

    at: datetime
    reason: Text

    @property
    def stream(self) -> str:
        return streams.SIIQ_UPDATES


class SiiqUpdateRan(Event, frozen=True):
    """One update over the latest snapshots: the snapshot of each source it used, the sources
    whose used snapshot changed (with Epoch AI's benchmark definitions when its did), and what
    it cross-checked (the checker's model and every answer)."""

    at: datetime
    snapshots: dict[str, str]
    checker: str
    checks: list[CrossCheck] = msgspec.field(default_factory=list)
    used: list[SourceUsed] = msgspec.field(default_factory=list)
    definitions: list[Benchmark] = msgspec.field(default_factory=list)
    missing: list[str] | None = None
    """The published values the newly used Epoch AI snapshot no longer lists (None: no new
    snapshot, the missing ones stay as they were)."""

    @property
    def stream(self) -> str:
        return streams.SIIQ_UPDATES


class ValuesPublished(Event, frozen=True):
    """New and changed values that passed every check, and removed ones, now the index's
    inputs. `correction` says whether a published value changed or went (a patch version)."""

    at: datetime
    values: list[PublishedValue]
    removed: list[str] = msgspec.field(default_factory=list)
    correction: bool = False
    purged: list[str] = msgspec.field(default_factory=list)
    """Values whose source name was matched to another model: gone at once, from the archived
    days (the history curves) too."""

    @property
    def stream(self) -> str:
        return streams.SIIQ_VALUES


class ValueHeld(Event, frozen=True):
    """Section 8: a value is held until a later snapshot confirms it (or a person releases it
    with `release_hold`); its published value (None for a new one) stays."""

    hold: Text
    model: str
    benchmark: str
    value: float
    published: float | None
    reason: Text
    since: datetime
    snapshot: str
    candidate: PublishedValue
    si_iq: float | None = None
    """For the new-leader guard: the model's score when its values were held."""

    @property
    def stream(self) -> str:
        return streams.hold(self.hold)


class HoldObserved(Event, frozen=True):
    """A held value as a later distinct snapshot showed it (None: no longer listed)."""

    hold: Text
    snapshot: str
    first_seen: datetime
    value: float | None
    candidate: PublishedValue | None = None

    @property
    def stream(self) -> str:
        return streams.hold(self.hold)


class HoldConfirmed(Event, frozen=True):
    """Section 8: a later snapshot (or the other GPQA Diamond run) confirmed the held value; the
    latest value is published."""

    hold: Text
    at: datetime
    by: Text

    @property
    def stream(self) -> str:
        return streams.hold(self.hold)


class CrossCheckRejected(Event, frozen=True):
    """Section 8: the checker did not confirm a number in its source row, so it is not used
    (a revised value so rejected leaves that model without the benchmark)."""

    at: datetime
    model: str
    benchmark: str
    value: float
    answer: str

    @property
    def stream(self) -> str:
        return streams.SIIQ_UPDATES


class SourceDataKept(Event, frozen=True):
    """Section 8: a source changed format or suddenly lost rows: its last good data stays,
    nothing of it is updated, and the failure is shown in /status.json."""

    at: datetime
    source: Text
    snapshot: str
    kind: Literal["format", "rows"]
    reason: Text
    keep_ratio: float | None = None
    rows: int = 0

    @property
    def stream(self) -> str:
        return streams.source_guard(self.source)


class SourceDataAccepted(Event, frozen=True):
    """Section 8: a source's data is used again (its format back, or a shrunk file accepted as
    the new normal after 24 hours)."""

    at: datetime
    source: Text
    snapshot: str
    reason: Text

    @property
    def stream(self) -> str:
        return streams.source_guard(self.source)


class BenchmarkFrozen(Event, frozen=True):
    """Section 8: a benchmark's definition changed (until a person reviews it), or many of its
    results moved at once (a revision): its published values stay as they were."""

    benchmark: Text
    at: datetime
    kind: Literal["definition", "revision"]
    reason: Text
    snapshot: str

    @property
    def stream(self) -> str:
        return streams.revision(self.benchmark)


class RevisionObserved(Event, frozen=True):
    """A frozen benchmark's values in a distinct snapshot: the values it revised (moved by more
    than half a point from the published value) since the freeze, by value key."""

    benchmark: Text
    snapshot: str
    first_seen: datetime
    values: dict[str, float | None]
    candidates: list[PublishedValue] = msgspec.field(default_factory=list)
    rejected: list[str] = msgspec.field(default_factory=list)
    """Revised values the cross-check did not confirm: left out at the transition."""

    @property
    def stream(self) -> str:
        return streams.revision(self.benchmark)


class RevisionAttempted(Event, frozen=True):
    """Section 8: a revision's transition was tried (with its recalibration) and failed; it
    stays frozen and is tried again a day later."""

    benchmark: Text
    at: datetime
    reason: Text

    @property
    def stream(self) -> str:
        return streams.revision(self.benchmark)


class BenchmarkUnfrozen(Event, frozen=True):
    """Section 8: a frozen benchmark moved to its new values in one step (with the accepted
    recalibration in the same batch), or a person reviewed its changed definition."""

    benchmark: Text
    at: datetime
    reason: Text

    @property
    def stream(self) -> str:
        return streams.revision(self.benchmark)


class OperatorNotified(Event, frozen=True):
    """Section 8: the operator is told (a held value unconfirmed after 7 days, a revision not
    ready after 3, a halted update or publication); shown in /status.json and `siiq holds`."""

    at: datetime
    subject: Text
    message: Text

    @property
    def stream(self) -> str:
        return streams.SIIQ_NOTICES


class PublicationHalted(Event, frozen=True):
    """Section 8: the pre-publication check stopped publication; the previous index stays."""

    at: datetime
    reason: Text
    models: list[str]

    @property
    def stream(self) -> str:
        return streams.SIIQ_PUBLICATION


class SiiqPublished(Event, frozen=True):
    """Section 8: the documents published at this position, by SHA-256, after every SI-IQ of
    the index was recomputed from its inputs; replaying the ledger to here gives these bytes."""

    at: datetime
    version: str
    index_sha256: str
    evidence_sha256: str
    history_sha256: str
    status_sha256: str
    scores: dict[str, float] = msgspec.field(default_factory=dict)
    """Each model's SI-IQ in the published index (full precision), for the next check."""
    ranked: list[str] = msgspec.field(default_factory=list)

    @property
    def stream(self) -> str:
        return streams.SIIQ_PUBLICATION
