"""A run's evidence as served (methodology section 17): fingerprints, transforms, and the
run-wide withholding rule every reader of a file obeys."""

from __future__ import annotations

import msgspec

from domain.errors import NotFound
from domain.state.methodology import Methodology
from domain.state.records import EvidenceCopy, Step

MEDIA_TYPES = {
    "cast": "application/x-asciicast",
    "log": "text/plain; charset=utf-8",
    "video": "video/x-matroska",
}
"""The files a run serves, and how."""


class EvidenceView(msgspec.Struct, frozen=True, kw_only=True):
    """One of a run's files as served (section 17): fingerprints and the transforms applied."""

    raw_sha256: str
    """The file of the evidence layer: what arrived, security-redacted before it was kept (the
    run's evidence fingerprint); what arrived itself only where nothing was redacted in it (a
    hash of bytes that held a credential is never published, issue 26)."""
    served_sha256: str | None
    transforms: list[str]
    counts: dict[str, int]
    key_material_masked: bool
    withheld: str | None
    stored_sha256: str | None = None
    """The file as kept: security-redacted before it was written (section 17)."""
    steps: list[Step] = msgspec.field(default_factory=list)
    """Each transform applied, in order, with its input and output fingerprints."""


class ServedCopy(msgspec.Struct, frozen=True, kw_only=True):
    """What a reader of one file gets: the served bytes' address, or why the run is withheld."""

    kind: str
    media_type: str
    raw_sha256: str
    served_sha256: str | None
    transforms: list[str]
    withheld: str | None
    """Section 17: while any file of the run is withheld, every file of it is."""


def kept_sha256(copy: EvidenceCopy) -> str:
    """Section 17 (issue 26): the file of the evidence layer: the security redaction's output
    (what was kept), or where there was none (quoted text, a file not kept) the first step's
    input, or where that was not recorded (a text whose private key was masked) the text as
    recorded; never what arrived where redaction changed it (recorded before issue 26)."""
    return copy.stored_sha256 or copy.raw_sha256 or copy.served_sha256 or ""


def evidence_views(state: Methodology, run_id: str) -> dict[str, EvidenceView]:
    return {
        kind: EvidenceView(
            raw_sha256=kept_sha256(copy),
            served_sha256=copy.served_sha256,
            transforms=list(copy.transforms),  # copies: the fold adds to a copy's in place
            counts=dict(copy.counts),
            key_material_masked=copy.counts.get("private_key_body", 0) > 0,
            withheld=copy.withheld,
            stored_sha256=copy.stored_sha256,
            steps=list(copy.steps),
        )
        for kind, copy in state.evidence.get(run_id, {}).items()
    }


def served_url(state: Methodology, run_id: str, kind: str) -> str | None:
    """Where a run's log or recording is served (`served_copy`'s address), None when it has no
    such file served (none recorded, or a file of the run withheld)."""
    copy = state.evidence.get(run_id, {}).get(kind)
    if copy is None or copy.served_sha256 is None or state.withheld(run_id):
        return None
    return f"/runs/{run_id}/evidence/{kind}"


def served_copy(state: Methodology, as_of: int, run_id: str, kind: str) -> ServedCopy:
    """Section 17: the served copy of a run's log or recording (never the raw file); a run with
    any file withheld serves none, and says why."""
    state.find_run(run_id, as_of)
    copies = state.evidence.get(run_id, {})
    copy = copies.get(kind)
    if kind not in MEDIA_TYPES or copy is None:
        raise NotFound(f"run {run_id!r} has no {kind!r} evidence")
    withheld = [f"{k} withheld: {c.withheld}" for k, c in sorted(copies.items()) if c.withheld]
    if copy.served_sha256 is None and not withheld:
        withheld = [f"{kind} withheld"]
    return ServedCopy(
        kind=kind,
        media_type=MEDIA_TYPES[kind],
        raw_sha256=kept_sha256(copy),
        served_sha256=copy.served_sha256,
        transforms=list(copy.transforms),
        withheld="; ".join(withheld) or None,
    )


class InstructionsView(msgspec.Struct, frozen=True, kw_only=True):
    """A version of the standard instructions as published (sections 7 point 2 and 18)."""

    sha256: str
    published_at: int


def instructions_view(state: Methodology, as_of: int, sha256: str) -> InstructionsView:
    """The instructions of that SHA-256, once published as of `as_of`."""
    published_at = state.instructions.get(sha256)
    if published_at is None:
        raise NotFound(f"no standard instructions {sha256!r} as of position {as_of}")
    return InstructionsView(sha256=sha256, published_at=published_at)
