"""Evidence files, content-addressed on the filesystem under ARGUSIC_HOME/artifacts.

A file is stored under its SHA-256, written to a temporary file, flushed to disk and renamed
into place, so a reader sees all of it or nothing; once stored it is never written again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from domain.events import Fingerprint

CHUNK = 1 << 20


def chunks(path: Path) -> Iterator[bytes]:
    """A file's bytes in chunks, so no file is ever held whole."""
    with path.open("rb") as file:
        yield from iter(lambda: file.read(CHUNK), b"")


def fingerprint(path: Path) -> Fingerprint:
    """The SHA-256 and size of a file, read in chunks."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks(path):
        digest.update(chunk)
        size += len(chunk)
    return Fingerprint(sha256=digest.hexdigest(), bytes=size)


class FileArtifactStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def put(self, source: Path) -> Fingerprint:
        """Store a copy of `source` under its SHA-256 (once) and return its fingerprint."""
        return self.put_stream(chunks(source))

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint:
        """Store bytes as they come, hashing them on the way, under their SHA-256 (once)."""
        target_dir = self.root / "sha256"
        target_dir.mkdir(parents=True, exist_ok=True)
        digest, size = hashlib.sha256(), 0
        descriptor, temporary = tempfile.mkstemp(dir=target_dir, prefix=".incoming-")
        try:
            with os.fdopen(descriptor, "wb") as out:
                for chunk in chunks:
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            found = Fingerprint(sha256=digest.hexdigest(), bytes=size)
            target = self.path(found.sha256)
            if not target.exists():
                target.parent.mkdir(exist_ok=True)
                os.chmod(temporary, 0o444)
                os.replace(temporary, target)
                _fsync_dir(target.parent)
            return found
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)

    def read(self, sha256: str) -> Iterator[bytes]:
        """A stored file, in chunks."""
        return chunks(self.path(sha256))


def _fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
