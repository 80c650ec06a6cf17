"""Checkpoints: the signed statement "the ledger held these `size` events, with this root"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import msgspec

from domain.errors import SetupError
from ledger.merkle import root_from_frontier
from ledger.note import CheckpointBody, Signer, Verifier, open_checkpoint

HASH_SIZE = 32


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """A sealed tree head as stored: the signed note, and the frontier the next append extends."""

    size: int
    previous: int | None
    root: bytes
    note: str
    sealed_at: str
    frontier: bytes

    def row(self) -> tuple[int, int | None, bytes, str, str, bytes]:
        """The checkpoint as a `ledger_checkpoints` row, in column order."""
        return (self.size, self.previous, self.root, self.note, self.sealed_at, self.frontier)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Checkpoint:
        size, previous, root, note, sealed_at, frontier = row
        return cls(
            size=size,
            previous=previous,
            root=bytes(root),
            note=note,
            sealed_at=sealed_at,
            frontier=bytes(frontier),
        )

    def frontier_hashes(self) -> list[bytes]:
        return [self.frontier[i : i + HASH_SIZE] for i in range(0, len(self.frontier), HASH_SIZE)]


class ReadOnlyLedger(SetupError):
    """A ledger opened with its public key alone was asked to write (docs/scale.md: readers)."""


class Sealer:
    """Signs checkpoints with the ledger's Ed25519 key; the key name is the log's origin. A
    reader's sealer holds the verifier key alone: it checks checkpoints and signs none."""

    def __init__(
        self, signer: Signer | None, clock: Callable[[], datetime], verifier: Verifier | None = None
    ) -> None:
        """`signer`, or for a reader None and the ledger's `verifier`."""
        self.signer = signer
        self.clock = clock
        found = signer.verifier if signer is not None else verifier
        if found is None:
            raise ValueError("a sealer needs the signing key or, to read only, the verifier key")
        self._verifier = found

    @property
    def verifier(self) -> Verifier:
        return self._verifier

    @property
    def signs(self) -> bool:
        """Whether this sealer holds the signing key (a writer's) or the verifier alone."""
        return self.signer is not None

    def seal(self, size: int, frontier: Sequence[bytes], previous: int | None) -> Checkpoint:
        """Sign the tree of `size` leaves, which extends the checkpoint of size `previous`."""
        if self.signer is None:
            raise ReadOnlyLedger(
                "this process holds the ledger's public key alone and appends nothing: "
                "writes go to a process holding the signing key, on the primary"
            )
        root = root_from_frontier(frontier)
        body = CheckpointBody(self.signer.name, size, root)
        return Checkpoint(
            size=size,
            previous=previous,
            root=root,
            note=self.signer.sign(body.text()),
            sealed_at=utc_text(self.clock()),
            frontier=b"".join(frontier),
        )

    def check(self, checkpoint: Checkpoint) -> str | None:
        """Why a stored checkpoint cannot be trusted, or None when its note proves its fields."""
        if reason := self.check_note(checkpoint):
            return reason
        if root_from_frontier(checkpoint.frontier_hashes()) != checkpoint.root:
            return f"checkpoint {checkpoint.size}: stored frontier does not give its root"
        return None

    def check_note(self, checkpoint: Checkpoint) -> str | None:
        """`check` but for the frontier: the signature, and the size and root it signs."""
        try:
            body = open_checkpoint(checkpoint.note, self.verifier)
        except ValueError as e:
            return f"checkpoint {checkpoint.size}: {e}"
        if (body.size, body.root) != (checkpoint.size, checkpoint.root):
            return f"checkpoint {checkpoint.size}: stored size or root differs from its note"
        return None


def utc_text(moment: datetime) -> str:
    """A UTC instant as the codec writes it (RFC 3339, `Z`)."""
    return msgspec.json.encode(moment).decode().strip('"')
