"""Every fact the ledger records: frozen msgspec Structs, tagged by their type name, one module
per area, and the one union the ledger decodes.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from domain.events.base import Count, Event, InputRecord, Text, Value, require_utc
from domain.events.evidence import (
    Evidence,
    EvidenceTransformed,
    Fingerprint,
    InstructionsPublished,
    RecordingWithheld,
    RenderMade,
    TimelineRecorded,
)
from domain.events.methodology import (
    Agent,
    AgentRegistered,
    AgentRuntime,
    AttemptKind,
    CycleOpened,
    EditionDrafted,
    Network,
    Pool,
    Project,
    ProjectReviewCleared,
    ProjectReviewed,
    Report,
    ReproductionReported,
    ReproductionRequested,
    RerunRequested,
    RunRecorded,
    RunStatus,
    RunVoided,
    SandboxLimits,
    SourceType,
    StrongerRequested,
    TestDepth,
    Verification,
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
    StreamHeadsCommitted,
)
from domain.events.pool import (
    ApiAnswer,
    Candidate,
    CandidateExcluded,
    CandidateRecorded,
    CandidatesFetchFailed,
    Criteria,
    Pinned,
    PoolSelected,
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
    SandboxRemoved,
    SourceFetched,
    SweepCompleted,
    Tier,
)
from domain.events.siiq import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.events.siiq_updates import (
    BenchmarkFrozen,
    BenchmarkUnfrozen,
    CrossCheck,
    CrossCheckRejected,
    HoldConfirmed,
    HoldObserved,
    OperatorNotified,
    PublicationHalted,
    PublishedValue,
    RevisionAttempted,
    RevisionObserved,
    SiiqPublished,
    SiiqUpdateHalted,
    SiiqUpdateRan,
    SourceDataAccepted,
    SourceDataKept,
    SourceUsed,
    ValueHeld,
    ValuesPublished,
    value_key,
)
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
    | InstructionsPublished
    | RecordingWithheld
    | RerunRequested
    | ReproductionRequested
    | ReproductionReported
    | StrongerRequested
    | SiiqInputsRecorded
    | CalibrationAccepted
    | CalibrationRejected
    | SourceSnapshotRecorded
    | SourceTableRecorded
    | AliasApproved
    | SiiqUpdateHalted
    | SiiqUpdateRan
    | ValuesPublished
    | ValueHeld
    | HoldObserved
    | HoldConfirmed
    | CrossCheckRejected
    | SourceDataKept
    | SourceDataAccepted
    | BenchmarkFrozen
    | RevisionObserved
    | RevisionAttempted
    | BenchmarkUnfrozen
    | OperatorNotified
    | PublicationHalted
    | SiiqPublished
    | AgentRegistered
    | CycleOpened
    | CycleClosed
    | OperatorActed
    | OperatorRegistered
    | OperatorRevoked
    | PublicationApproved
    | StreamHeadsCommitted
    | DisputeOpened
    | DisputeResolved
    | HoldReleased
    | RevisionApproved
    | RunEvent
    | SweepCompleted
    | EmergencyStopped
    | CandidateRecorded
    | CandidateExcluded
    | PoolSelected
    | CandidatesFetchFailed
    | RenderMade
    | TimelineRecorded
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
    "ApiAnswer",
    "AttemptKind",
    "BenchmarkFrozen",
    "BenchmarkUnfrozen",
    "CalibrationAccepted",
    "CalibrationRejected",
    "Candidate",
    "CandidateExcluded",
    "CandidateRecorded",
    "CandidatesFetchFailed",
    "Count",
    "Criteria",
    "CrossCheck",
    "CrossCheckRejected",
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
    "HoldConfirmed",
    "HoldObserved",
    "HoldReleased",
    "InputRecord",
    "InstructionsPublished",
    "KeyMode",
    "ModelKeyCreated",
    "ModelKeyCreationFailed",
    "ModelKeyDeleted",
    "ModelKeyRequested",
    "Network",
    "OperatorActed",
    "OperatorNotified",
    "OperatorRegistered",
    "OperatorRevoked",
    "Pinned",
    "Pool",
    "PoolSelected",
    "Project",
    "ProjectReviewCleared",
    "ProjectReviewed",
    "PublicationApproved",
    "PublicationHalted",
    "PublishedValue",
    "RecordingWithheld",
    "RenderMade",
    "Report",
    "ReproductionReported",
    "ReproductionRequested",
    "RerunRequested",
    "RevisionApproved",
    "RevisionAttempted",
    "RevisionObserved",
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
    "SiiqPublished",
    "SiiqUpdateHalted",
    "SiiqUpdateRan",
    "SourceDataAccepted",
    "SourceDataKept",
    "SourceFetched",
    "SourceSnapshotRecorded",
    "SourceTableRecorded",
    "SourceType",
    "SourceUsed",
    "StreamHeadsCommitted",
    "StrongerRequested",
    "SweepCompleted",
    "TableSummary",
    "TestDepth",
    "Text",
    "Tier",
    "TimelineRecorded",
    "Value",
    "ValueHeld",
    "ValuesPublished",
    "Verification",
    "require_utc",
    "value_key",
]
