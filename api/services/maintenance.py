"""Keeping the ledger honest and its read models fresh: verify everything, export it for an
auditor, fold a read model again from position 0. Progress is reported through a callback."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import msgspec

from api.services.ports import EvidenceStore
from domain.errors import IntegrityFailure
from domain.events import Evidence
from domain.state.fold import apply
from domain.state.methodology import Methodology
from ledger import codec
from ledger.actions import SIGNATURES
from ledger.codec import encode_json
from ledger.export import export_lines
from ledger.ledger import Ledger
from ledger.verify import VerifyReport, verify
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel

Progress = Callable[[int], None] | None


class RebuildReport(msgspec.Struct, frozen=True, kw_only=True):
    projection: str
    position: int
    sha256: str


def rebuild(ledger: Ledger, progress: Progress = None) -> RebuildReport:
    """Fold the methodology read model from position 0 again and store it (at the latest
    approved position: `ReadModel`); the same ledger always gives the same bytes at the head
    (their SHA-256 is reported)."""
    read_model = ReadModel(ledger, MethodologyProjection())
    position, model = read_model.rebuild(progress)
    digest = hashlib.sha256(encode_json(model)).hexdigest()
    return RebuildReport(projection=read_model.projection.name, position=position, sha256=digest)


def verify_ledger(
    ledger: Ledger,
    progress: Progress = None,
    *,
    after: int = 0,
    upto: int | None = None,
    workers: int = 1,
    opener: Callable[[], Ledger] | None = None,
) -> VerifyReport:
    """Recompute every hash, Merkle node, root and signature from the stored events (those
    after `after` up to `upto`), in up to `workers` processes that open the ledger with
    `opener`."""
    return verify(ledger, progress, after=after, upto=upto, workers=workers, opener=opener)


EVIDENCE_TYPES = frozenset({"EvidenceTransformed", "RecordingWithheld", "RenderMade"})
FILE_KINDS = frozenset(Evidence.__struct_fields__)
"""A run's evidence files; its other transformed kinds are quoted text, not files."""


class EvidenceProblem(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    kind: str
    copy: str
    """`stored` (redacted as it arrived) or `served`."""
    sha256: str
    reason: str


class EvidenceReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    files_checked: int
    problems: list[EvidenceProblem]


class FullReport(msgspec.Struct, frozen=True, kw_only=True):
    """`ledger verify --evidence`: the ledger, then every artifact it records."""

    ok: bool
    ledger: VerifyReport
    evidence: EvidenceReport


def recorded_artifacts(ledger: Ledger) -> dict[tuple[str, str, str], str]:
    """Every evidence file the ledger says is in the artifact store, by (run, kind, copy):
    the SHA-256 its events recorded. Only the evidence events are decoded."""
    state = Methodology()
    for row in ledger.rows():
        if row.type in EVIDENCE_TYPES:
            envelope = codec.decode(row.canonical)
            apply(state, row.position, envelope.event, envelope.recorded_at, SIGNATURES)
    found = {}
    for run_id, copies in state.evidence.items():
        for kind, copy in copies.items():
            if kind not in FILE_KINDS:
                continue
            for name, sha256 in (("stored", copy.stored_sha256), ("served", copy.served_sha256)):
                if sha256 is not None:
                    found[run_id, kind, name] = sha256
    for run_id, renders in state.renders.items():  # section 17's renders, kept beside them
        for made in renders:
            found[run_id, "render", made.event.render] = made.event.sha256
    return found


def _rehash(store: EvidenceStore, sha256: str) -> str | None:
    """Why the stored file does not hold the bytes of `sha256`, if it does not."""
    digest = hashlib.sha256()
    try:
        for chunk in store.read(sha256):
            digest.update(chunk)
    except FileNotFoundError:
        return "the file is missing"
    except OSError as e:
        return f"the file cannot be read: {e.strerror}"
    except IntegrityFailure as e:  # a store that checks what it reads (the S3 store)
        return str(e)
    if digest.hexdigest() != sha256:
        return f"its bytes hash to {digest.hexdigest()}, not to its recorded SHA-256"
    return None


def verify_evidence(ledger: Ledger, store: EvidenceStore) -> EvidenceReport:
    """Re-hash every stored artifact the ledger records against its recorded SHA-256, each
    file once, naming the run and the file of any that is missing or changed."""
    artifacts = recorded_artifacts(ledger)
    verdicts: dict[str, str | None] = {}
    problems = []
    for (run_id, kind, copy), sha256 in sorted(artifacts.items()):
        if sha256 not in verdicts:
            verdicts[sha256] = _rehash(store, sha256)
        if (reason := verdicts[sha256]) is not None:
            problems.append(
                EvidenceProblem(run_id=run_id, kind=kind, copy=copy, sha256=sha256, reason=reason)
            )
    return EvidenceReport(ok=not problems, files_checked=len(verdicts), problems=problems)


def export(ledger: Ledger, after: int = 0) -> Iterator[bytes]:
    """Every event after `after`, one JSON line each, in position order."""
    return export_lines(ledger, after)
