"""The ledger's Ed25519 signing key, kept as a C2SP signer key string in a private file."""

from __future__ import annotations

import os
from pathlib import Path

from domain.errors import SetupError
from ledger.note import Signer


class SigningKeyMissing(SetupError):
    """The signing key is missing or unreadable while the ledger already has signed checkpoints."""


def load_signer(path: Path) -> Signer | None:
    """The signer stored at `path`, or None when there is none."""
    try:
        return Signer.parse(path.read_text().strip())
    except FileNotFoundError:
        return None


def create_signer(path: Path, name: str) -> Signer:
    """Generate a key and write it readable by its owner only, never overwriting one."""
    signer = Signer.generate(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(f"{signer}\n")
        file.flush()
        os.fsync(file.fileno())
    return signer
