"""Every fact the ledger records: frozen msgspec Structs, tagged by their type name.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import cache
from typing import Annotated, Literal

import msgspec
import msgspec.inspect

from domain.siiq.records import Benchmark, CalibrationSummary, Result


def require_utc(owner: str, name: str, value: object) -> None:
    """Timestamps are hashed, so one instant must have one spelling: UTC, written `Z`."""
    if isinstance(value, datetime) and value.utcoffset() != timedelta(0):
        raise ValueError(f"{owner}.{name} must be a UTC timestamp")


@cache
def _timestamp_fields(cls: type) -> tuple[str, ...]:
    def holds_datetime(t: msgspec.inspect.Type) -> bool:
        if isinstance(t, msgspec.inspect.UnionType):
            return any(map(holds_datetime, t.types))
        return isinstance(t, msgspec.inspect.DateTimeType)

    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return tuple(f.name for f in info.fields if holds_datetime(f.type))


class Event(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag=True):
    """Base of every recorded fact; the tag (`type`) is the class name."""

    def __post_init__(self) -> None:
        for name in _timestamp_fields(type(self)):
            require_utc(type(self).__name__, name, getattr(self, name))

    @property
    def stream(self) -> str:
        """The stream (aggregate) this fact belongs to; versions are counted per stream."""
        raise NotImplementedError


class EditionDrafted(Event, frozen=True):
    """A changelog edition of the methodology was written down (methodology section 20)."""

    version: str
    drafted: date
    summary: str

    @property
    def stream(self) -> str:
        return f"edition:{self.version}"


SourceType = Literal[
    "repository",
    "huggingface_model",
    "huggingface_space",
    "package",
    "vendor_tool",
    "cloud_template",
    "container_image",
    "mcp_server",
]
"""Methodology section 6a: what a tested project can be."""

Pool = Literal["public", "secret"]
AttemptKind = Literal["standard", "retry", "stronger"]
RunStatus = Literal["finished", "timeout", "invalid"]
TestDepth = Literal["tier1_real", "tier2_mock", "tier3_none"]
Count = Annotated[int, msgspec.Meta(ge=0)]
Text = Annotated[str, msgspec.Meta(min_length=1)]


class Value(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of the values events carry (and input records reuse)."""


class InputRecord(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="kind"
):
    """Base of the records `argusic ingest` reads, told apart by their `kind`."""


class Project(Value, frozen=True):
    """A tested project, pinned (methodology sections 6 and 6a)."""

    id: Text
    source_type: SourceType
    pool: Pool
    repo: str | None = None
    commit: str | None = None
    heavy: bool = False
    needs_gpu: bool = False
    repo_size_mb: Annotated[float, msgspec.Meta(ge=0)] | None = None
    description: str | None = None
    """The repository's own description, stored as its author wrote it."""


class Agent(Value, frozen=True):
    """A fixed, version-pinned agent: model and harness (methodology section 4)."""

    id: Text
    model: Text
    model_version: Text
    harness: Text
    harness_version: Text


class Report(Value, frozen=True):
    """What the agent reported at the end of a run (methodology sections 8 and 16)."""

    installed: bool
    started: bool
    errors_found: Count
    errors_fixed: Count
    test_depth: TestDepth
    verified_how: str | None = None
    final_state: str | None = None


class Fingerprint(Value, frozen=True):
    """An evidence file as it arrived: its SHA-256 and size (methodology section 17)."""

    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    bytes: Count


class Evidence(Value, frozen=True):
    log: Fingerprint | None = None
    cast: Fingerprint | None = None


class RunRecorded(Event, frozen=True):
    """One run of an agent on a project, as its harness reported it; outcome and score are
    derived from it by the rubric, never recorded (methodology sections 7 and 8)."""

    run_id: Text
    cycle: str
    edition: str
    project: Project
    agent: Agent
    attempt: AttemptKind
    started_at: datetime
    finished_at: datetime
    status: RunStatus
    invalid_reason: str | None
    report: Report | None
    evidence: Evidence

    @property
    def stream(self) -> str:
        return f"run:{self.run_id}"


class ProjectReviewCleared(Event, frozen=True):
    """A person reviewed a project put under review and cleared it (methodology section 15)."""

    project_id: Text
    reviewer: Text
    note: str

    @property
    def stream(self) -> str:
        return f"review:{self.project_id}"


class EvidenceTransformed(Event, frozen=True):
    """One transform of section 17 applied to one of a run's files (or its quoted text): what
    went in and came out, by SHA-256, and how many things it changed; never the secret."""

    run_id: Text
    kind: str
    transform: str
    version: int
    input_sha256: str
    output_sha256: str
    counts: dict[str, int]

    @property
    def stream(self) -> str:
        return f"evidence:{self.run_id}:{self.kind}"


class RecordingWithheld(Event, frozen=True):
    """Section 17: a file that cannot be shown to be free of a live credential, or whose key
    material cannot be shown masked, is never served."""

    run_id: Text
    kind: str
    input_sha256: str
    reason: str

    @property
    def stream(self) -> str:
        return f"evidence:{self.run_id}:{self.kind}"


class RerunRequested(Event, frozen=True):
    """Section 17: a run whose evidence was withheld is run again."""

    run_id: Text
    reason: str

    @property
    def stream(self) -> str:
        return f"rerun:{self.run_id}"


class SiiqInputsRecorded(Event, frozen=True):
    """The normalised inputs of an SI-IQ calibration, as selected (SI-IQ section 1, A1 to A3),
    with the SHA-256 of each input file as it was read."""

    inputs: dict[str, str]
    results: list[Result]
    benchmarks: list[Benchmark]
    reference: list[str]
    ignored_rows: dict[str, int]
    invalid_benchmarks: list[str]

    @property
    def stream(self) -> str:
        return "siiq-inputs:" + "-".join(self.inputs[k][:16] for k in sorted(self.inputs))


class CalibrationAccepted(Event, frozen=True):
    """SI-IQ section 3: a calibration passed every check; its parameters are now frozen."""

    inputs: dict[str, str]
    calibration: CalibrationSummary

    @property
    def stream(self) -> str:
        return "siiq-calibration"


class CalibrationRejected(Event, frozen=True):
    """SI-IQ section 3: a calibration was rejected, and the previous one stays in force."""

    inputs: dict[str, str]
    calibration: CalibrationSummary

    @property
    def stream(self) -> str:
        return "siiq-calibration"


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
)
"""The tagged union the ledger decodes; extend it with every new event type."""
