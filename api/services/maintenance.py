"""Keeping the ledger honest and its read models fresh: verify everything, export it for an
auditor, fold a read model again from position 0. Progress is reported through a callback."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import msgspec

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
    """Fold the methodology read model from position 0 again and store it; the same ledger
    always gives the same bytes (their SHA-256 is reported)."""
    read_model = ReadModel(ledger, MethodologyProjection())
    position, model = read_model.rebuild(progress)
    digest = hashlib.sha256(encode_json(model)).hexdigest()
    return RebuildReport(projection=read_model.projection.name, position=position, sha256=digest)


def verify_ledger(ledger: Ledger, progress: Progress = None) -> VerifyReport:
    """Recompute every hash, Merkle node, root and signature from the stored events."""
    return verify(ledger, progress)


def export(ledger: Ledger, after: int = 0) -> Iterator[bytes]:
    """Every event after `after`, one JSON line each, in position order."""
    return export_lines(ledger, after)
