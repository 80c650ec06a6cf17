"""Every fact the ledger records: frozen msgspec Structs, tagged by their type name, one module
per area, and the one union the ledger decodes.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from domain.events.base import Count, Event, InputRecord, Text, Value, require_utc
from domain.events.evidence import Evidence, EvidenceTransformed, Fingerprint, RecordingWithheld
from domain.events.methodology import (
    Agent,
    AgentRegistered,
    AgentRuntime,
    AttemptKind,
    CycleOpened,
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
from domain.events.operators import (
    CycleClosed,
    DisputeOpened,
    DisputeResolved,
    HoldReleased,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    PublicationApproved,
    RevisionApproved,
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
    | AgentRegistered
    | CycleOpened
    | CycleClosed
    | OperatorActed
    | OperatorRegistered
    | OperatorRevoked
    | PublicationApproved
    | DisputeOpened
    | DisputeResolved
    | HoldReleased
    | RevisionApproved
)
"""The tagged union the ledger decodes; extend it with every new event type."""

__all__ = [
    "Agent",
    "AgentRegistered",
    "AgentRuntime",
    "AliasApproved",
    "AttemptKind",
    "CalibrationAccepted",
    "CalibrationRejected",
    "Count",
    "CycleClosed",
    "CycleOpened",
    "DisputeOpened",
    "DisputeResolved",
    "DomainEvent",
    "EditionDrafted",
    "Event",
    "Evidence",
    "EvidenceTransformed",
    "Fingerprint",
    "HoldReleased",
    "InputRecord",
    "OperatorActed",
    "OperatorRegistered",
    "OperatorRevoked",
    "Pool",
    "Project",
    "ProjectReviewCleared",
    "ProjectReviewed",
    "PublicationApproved",
    "RecordingWithheld",
    "Report",
    "RerunRequested",
    "RevisionApproved",
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
