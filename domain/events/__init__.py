"""Every fact the ledger records: frozen msgspec Structs, tagged by their type name, one module
per area, and the one union the ledger decodes.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from domain.events.base import Count, Event, InputRecord, Text, Value, require_utc
from domain.events.evidence import Evidence, EvidenceTransformed, Fingerprint, RecordingWithheld
from domain.events.methodology import (
    Agent,
    AttemptKind,
    EditionDrafted,
    Pool,
    Project,
    ProjectReviewCleared,
    ProjectReviewed,
    Report,
    RerunRequested,
    RunRecorded,
    RunStatus,
    RunVoided,
    SourceType,
    TestDepth,
)
from domain.events.siiq import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.events.sources import (
    AliasApproved,
    SourceSnapshotRecorded,
    SourceTableRecorded,
    TableSummary,
)

DomainEvent = (
    EditionDrafted
    | RunRecorded
    | ProjectReviewCleared
    | ProjectReviewed
    | RunVoided
    | EvidenceTransformed
    | RecordingWithheld
    | RerunRequested
    | SiiqInputsRecorded
    | CalibrationAccepted
    | CalibrationRejected
    | SourceSnapshotRecorded
    | SourceTableRecorded
    | AliasApproved
)
"""The tagged union the ledger decodes; extend it with every new event type."""

__all__ = [
    "Agent",
    "AliasApproved",
    "AttemptKind",
    "CalibrationAccepted",
    "CalibrationRejected",
    "Count",
    "DomainEvent",
    "EditionDrafted",
    "Event",
    "Evidence",
    "EvidenceTransformed",
    "Fingerprint",
    "InputRecord",
    "Pool",
    "Project",
    "ProjectReviewCleared",
    "ProjectReviewed",
    "RecordingWithheld",
    "Report",
    "RerunRequested",
    "RunRecorded",
    "RunStatus",
    "RunVoided",
    "SiiqInputsRecorded",
    "SourceSnapshotRecorded",
    "SourceTableRecorded",
    "SourceType",
    "TableSummary",
    "TestDepth",
    "Text",
    "Value",
    "require_utc",
]
