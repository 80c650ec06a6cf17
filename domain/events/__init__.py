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
from domain.events.runner import (
    AgentExited,
    AgentStarted,
    AgentTimedOut,
    EmergencyStopped,
    Ended,
    EvidenceStored,
    KeyMode,
    ModelKeyCreated,
    ModelKeyCreationFailed,
    ModelKeyDeleted,
    ModelKeyRequested,
    RunAborted,
    RunCancelled,
    RunClaimed,
    RunClosed,
    RunEvent,
    RunScheduled,
    SandboxCreated,
    SandboxLimits,
    SandboxRemoved,
    SourceFetched,
    SweepCompleted,
    Tier,
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
    | RunEvent
    | SweepCompleted
    | EmergencyStopped
)
"""The tagged union the ledger decodes; extend it with every new event type."""

__all__ = [
    "Agent",
    "AgentExited",
    "AgentRegistered",
    "AgentRuntime",
    "AgentStarted",
    "AgentTimedOut",
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
    "EmergencyStopped",
    "Ended",
    "Event",
    "Evidence",
    "EvidenceStored",
    "EvidenceTransformed",
    "Fingerprint",
    "HoldReleased",
    "InputRecord",
    "KeyMode",
    "ModelKeyCreated",
    "ModelKeyCreationFailed",
    "ModelKeyDeleted",
    "ModelKeyRequested",
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
    "RunAborted",
    "RunCancelled",
    "RunClaimed",
    "RunClosed",
    "RunEvent",
    "RunRecorded",
    "RunScheduled",
    "RunStatus",
    "RunVoided",
    "SandboxCreated",
    "SandboxLimits",
    "SandboxRemoved",
    "SiiqInputsRecorded",
    "SourceFetched",
    "SourceSnapshotRecorded",
    "SourceTableRecorded",
    "SourceType",
    "SweepCompleted",
    "TableSummary",
    "TestDepth",
    "Text",
    "Tier",
    "Value",
    "require_utc",
]
