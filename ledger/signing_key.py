"""The ledger's Ed25519 signing key, kept as a C2SP signer key string in a private file."""

from __future__ import annotations

import hashlib
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
    return store_signer(path, Signer.generate(name))


def new_ledger_signer(base: str) -> Signer:
    """A new ledger key named `<base>/<the first 16 hex digits of the SHA-256 of its public
    key>`: the name is the checkpoint origin, so each ledger's is its own and an action signed
    for one ledger counts on no other."""
    key = Signer.generate(base).private_key
    public = Signer(base, key).verifier.public_key
    return Signer(f"{base}/{hashlib.sha256(public).hexdigest()[:16]}", key)


def store_signer(path: Path, signer: Signer) -> Signer:
    """Write a key readable by its owner only, never overwriting one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(f"{signer}\n")
        file.flush()
        os.fsync(file.fileno())
    return signer
