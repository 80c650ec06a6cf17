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
    Report,
    RerunRequested,
    RunRecorded,
    RunStatus,
    SourceType,
    TestDepth,
)
from domain.events.runner import (
    AgentExited,
    AgentRuntime,
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
    RunScheduled,
    SandboxCreated,
    SandboxLimits,
    SandboxRemoved,
    SourceFetched,
    SweepCompleted,
    Tier,
)
from domain.events.siiq import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded

DomainEvent = (
    EditionDrafted
    | RunRecorded
    | ProjectReviewCleared
    | EvidenceTransformed
    | RecordingWithheld
    | RerunRequested
    | SiiqInputsRecorded
    | CalibrationAccepted
    | CalibrationRejected
    | RunScheduled
    | RunClaimed
    | ModelKeyRequested
    | ModelKeyCreated
    | ModelKeyCreationFailed
    | SourceFetched
    | SandboxCreated
    | AgentStarted
    | AgentExited
    | AgentTimedOut
    | RunCancelled
    | RunAborted
    | EvidenceStored
    | ModelKeyDeleted
    | SandboxRemoved
    | RunClosed
    | SweepCompleted
    | EmergencyStopped
)
"""The tagged union the ledger decodes; extend it with every new event type."""

__all__ = [
    "Agent",
    "AgentExited",
    "AgentRuntime",
    "AgentStarted",
    "AgentTimedOut",
    "AttemptKind",
    "CalibrationAccepted",
    "CalibrationRejected",
    "Count",
    "DomainEvent",
    "EditionDrafted",
    "EmergencyStopped",
    "Ended",
    "Event",
    "Evidence",
    "EvidenceStored",
    "EvidenceTransformed",
    "Fingerprint",
    "InputRecord",
    "KeyMode",
    "ModelKeyCreated",
    "ModelKeyCreationFailed",
    "ModelKeyDeleted",
    "ModelKeyRequested",
    "Pool",
    "Project",
    "ProjectReviewCleared",
    "RecordingWithheld",
    "Report",
    "RerunRequested",
    "RunAborted",
    "RunCancelled",
    "RunClaimed",
    "RunClosed",
    "RunRecorded",
    "RunScheduled",
    "RunStatus",
    "SandboxCreated",
    "SandboxLimits",
    "SandboxRemoved",
    "SiiqInputsRecorded",
    "SourceFetched",
    "SourceType",
    "SweepCompleted",
    "TestDepth",
    "Text",
    "Tier",
    "Value",
    "require_utc",
]
