"""Facts about a run's evidence files (methodology section 17)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.events import streams
from domain.events.base import Count, Event, Text, Value


class Fingerprint(Value, frozen=True):
    """An evidence file as kept: its SHA-256 and size (methodology section 17), of what arrived
    security-redacted before anything was written (issue 26; runs recorded before it carry what
    arrived)."""

    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    bytes: Count


class Evidence(Value, frozen=True):
    log: Fingerprint | None = None
    cast: Fingerprint | None = None
    video: Fingerprint | None = None
    """Section 17: a desktop run's raw video of its virtual display, as it arrived."""


class EvidenceTransformed(Event, frozen=True):
    """One transform of section 17 applied to one of a run's files (or its quoted text): what
    went in and came out, by SHA-256, and how many things it changed; never the secret."""

    run_id: Text
    kind: str
    transform: str
    version: int
    input_sha256: str
    """Empty where a security redaction changed what arrived (issue 26): those bytes held a
    credential, and a hash of them would let anyone test guesses of it."""
    output_sha256: str
    counts: dict[str, int]

    @property
    def stream(self) -> str:
        return streams.evidence(self.run_id, self.kind)


class InstructionsPublished(Event, frozen=True):
    """Sections 7 point 2 and 18: a version of the standard instructions the agents were given,
    kept whole under its SHA-256 and published once, before the first run that had it."""

    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    bytes: Count

    @property
    def stream(self) -> str:
        return streams.instructions(self.sha256)


class RecordingWithheld(Event, frozen=True):
    """Section 17: a file that cannot be shown to be free of a live credential, or whose key
    material cannot be shown masked, is never served."""

    run_id: Text
    kind: str
    input_sha256: str
    reason: str

    @property
    def stream(self) -> str:
        return streams.evidence(self.run_id, self.kind)


class RenderMade(Event, frozen=True):
    """Section 17, the presentation layer: a render of a run's served recording, with the
    source's fingerprint, the exact edit list, the output's fingerprint and the versions of the
    tools that made it; the file is kept under its SHA-256 and links back to its evidence."""

    render: Text
    """`<run id>/render/<n>`: the run's n-th render."""
    run_id: Text
    source_sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    edits: list[str]
    format: str
    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
    bytes: Count
    tools: dict[str, str]

    @property
    def stream(self) -> str:
        return streams.render(self.run_id)


MarkKind = Literal["command", "failure", "fixed", "verification", "end"]

WEIGHT: dict[str, int] = {"command": 0, "verification": 1, "fixed": 2, "end": 3, "failure": 4}
"""Which mark names a chapter where several fall at one time."""


class Mark(Value, frozen=True):
    """One point of the timeline, at a time of the recording (seconds from its start)."""

    time: float
    kind: MarkKind
    label: str
    until: float
    """Where what it marks ends: the next command's start, or the recording's end."""
    status: int | None = None
    """The exit status the recording shows for a command, where it shows one."""


class Timeline(Value, frozen=True):
    """Section 17: the recorded chronology of a run's commands, errors and fixes."""

    source_sha256: str
    """The served recording it was derived from."""
    duration: float
    marks: list[Mark]
    errors_found: int
    errors_fixed: int
    errors_unplaced: int
    """Errors the report counts that the recording shows no failure for."""

    def chapters(self) -> list[Mark]:
        """One mark a time, the weightiest there (a failure over its command): the player's
        chapters."""
        chosen: dict[float, Mark] = {}
        for mark in self.marks:
            held = chosen.get(mark.time)
            if held is None or WEIGHT[mark.kind] > WEIGHT[held.kind]:
                chosen[mark.time] = mark
        return sorted(chosen.values(), key=lambda mark: mark.time)


class TimelineRecorded(Event, frozen=True):
    """Section 17: a run's timeline as derived from its served recording when the run arrived
    (runs recorded before it existed have theirs derived when read, the same way)."""

    run_id: Text
    timeline: Timeline

    @property
    def stream(self) -> str:
        return streams.timeline(self.run_id)
