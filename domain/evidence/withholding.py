"""What the ledger records for one of a run's files once its served copy is derived
(methodology section 17): each transform applied, or, for a file that cannot be shown safe,
that it is withheld and its run repeated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.events import EvidenceTransformed, RecordingWithheld, RerunRequested
from domain.evidence import redaction
from domain.evidence.pipeline import Applied

FileEvents = list[EvidenceTransformed | RecordingWithheld | RerunRequested]


def withhold(run_id: str, kind: str, raw_sha256: str, reason: str) -> FileEvents:
    """Section 17: "una grabación de la que no se puede demostrar que esté libre de una
    credencial se retiene, y su ejecución se repite"."""
    return [
        RecordingWithheld(run_id=run_id, kind=kind, input_sha256=raw_sha256, reason=reason),
        RerunRequested(
            run_id=run_id, reason=f"{kind} withheld: {reason}", why="withheld_recording"
        ),
    ]


def recorded_input(applied: Applied) -> str:
    """Section 17 (issue 26): the input of a security redaction that changed something held a
    credential; its SHA-256 would let anyone test guesses of it offline (a password, a short
    key: the rest of the file is public), and nobody could check it, as those bytes are never
    kept: it is not recorded (""). Every other input is the output before it, and recorded."""
    if applied.transform == redaction.NAME and applied.input_sha256 != applied.output_sha256:
        return ""
    return applied.input_sha256


def transformed(run_id: str, kind: str, applied: Sequence[Applied]) -> FileEvents:
    """Section 17: every transform applied to a served copy, with what went in and out."""
    return [
        EvidenceTransformed(
            run_id=run_id,
            kind=kind,
            transform=a.transform,
            version=a.version,
            input_sha256=recorded_input(a),
            output_sha256=a.output_sha256,
            counts=a.counts,
        )
        for a in applied
    ]


VIDEO_AS_RECORDED, VIDEO_VERSION = "video-as-recorded", 1
"""A raw video is served as it was recorded or not at all: pixels cannot be redacted."""


def as_recorded(sha256: str) -> Applied:
    """Section 17: a desktop run's raw video, served as recorded."""
    return Applied(
        transform=VIDEO_AS_RECORDED,
        version=VIDEO_VERSION,
        input_sha256=sha256,
        output_sha256=sha256,
        counts={},
    )


def credential_may_be_on_screen(applied: Mapping[str, Sequence[Applied]]) -> str | None:
    """Section 17 ("Una grabación de la que no se puede demostrar que esté libre de una
    credencial se retiene, y su ejecución se repite"): a raw video of the screen cannot be
    redacted, so where the run's terminal showed a credential (its security redaction changed
    its recording or log) the video cannot be shown free of it; the reason, else None."""
    shown = sorted(
        kind
        for kind, steps in applied.items()
        for step in steps
        if step.transform == redaction.NAME and step.input_sha256 != step.output_sha256
    )
    if not shown:
        return None
    return (
        f"a credential was in the run's {' and '.join(dict.fromkeys(shown))}, so it may be on "
        "the screen the video recorded, which cannot be redacted"
    )
