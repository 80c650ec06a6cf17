"""What the CLI and the HTTP API both answer: one function per question, over the ledger."""

from __future__ import annotations

import msgspec

from ledger.ledger import Ledger
from projections.editions import EditionRow, EditionsProjection
from projections.runner import ReadModel


class CheckpointView(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: str
    note: str
    public_key: str
    sealed_at: str


class EditionsView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    editions: list[EditionRow]


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: str
    size: int


def checkpoint_view(ledger: Ledger, size: int | None = None) -> CheckpointView:
    checkpoint = ledger.checkpoint(size)
    return CheckpointView(
        size=checkpoint.size,
        root=checkpoint.root.hex(),
        note=checkpoint.note,
        public_key=str(ledger.recorder.sealer.verifier),
        sealed_at=checkpoint.sealed_at,
    )


def position_as_of(ledger: Ledger, as_of: int | None) -> int:
    """The position a read answers as of: the latest by default, never past the end."""
    size = ledger.size()
    if as_of is None:
        return size
    if not 0 <= as_of <= size:
        raise LookupError(f"position {as_of} is outside the ledger (0..{size})")
    return as_of


def editions_view(ledger: Ledger, as_of: int | None = None) -> EditionsView:
    position = position_as_of(ledger, as_of)
    model = ReadModel(ledger, EditionsProjection()).as_of(position)
    return EditionsView(as_of=position, editions=model.editions)


def health(ledger: Ledger) -> Health:
    return Health(status="ok", size=ledger.size())
