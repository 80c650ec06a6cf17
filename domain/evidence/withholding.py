"""What the ledger records for one of a run's files once its served copy is derived
(methodology section 17): each transform applied, or, for a file that cannot be shown safe,
that it is withheld and its run repeated."""

from __future__ import annotations

from collections.abc import Sequence

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
