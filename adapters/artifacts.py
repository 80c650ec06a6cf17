"""Evidence files, content-addressed on the filesystem under ARGUSIC_HOME/artifacts.

A file is stored under its SHA-256, written to a temporary file, flushed to disk and renamed
into place, so a reader sees all of it or nothing; once stored it is never written again.
Files are readable by their owner only (0400), folders open to their owner only (0700): the
store is served through the API, never straight off the disk (issue 26).
"""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import IO

from domain.errors import SetupError
from domain.events import Fingerprint

CHUNK = 1 << 20


class ArtifactStoreFull(SetupError):
    """The store's disk (or quota) is full: what was being stored is not, whole or in part."""


def chunks(path: Path) -> Iterator[bytes]:
    """A file's bytes in chunks, so no file is ever held whole."""
    with path.open("rb") as file:
        yield from iter(lambda: file.read(CHUNK), b"")


class HashingWriter:
    """The bytes of a file being stored, hashed as they are written into `file`."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.digest, self.size = hashlib.sha256(), 0
        self.fingerprint: Fingerprint | None = None

    def write(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        self.size += len(chunk)
        self.file.write(chunk)

    def seal(self) -> Fingerprint:
        """The fingerprint of every byte written: nothing more may be written."""
        self.fingerprint = Fingerprint(sha256=self.digest.hexdigest(), bytes=self.size)
        return self.fingerprint


class _Writer(HashingWriter):
    """A file being stored on disk: flushed to it before its fingerprint is taken."""

    def finish(self) -> Fingerprint:
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        return self.seal()


class ContentAddressed:
    """What every artifact store does the same way over its own `storing()`: a file received
    in chunks, and bytes stored under their SHA-256 as they come."""

    def storing(self) -> AbstractContextManager[HashingWriter]:
        raise NotImplementedError

    def source(self, path: Path) -> Iterator[bytes]:
        """A file to be received (an evidence file a record names), in chunks."""
        return chunks(path)

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint:
        """Store bytes as they come, hashing them on the way, under their SHA-256 (once)."""
        with self.storing() as writer:
            for chunk in chunks:
                writer.write(chunk)
        assert writer.fingerprint is not None
        return writer.fingerprint


class FileArtifactStore(ContentAddressed):
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def read(self, sha256: str) -> Iterator[bytes]:
        """A stored file, in chunks."""
        return chunks(self.path(sha256))

    @contextmanager
    def storing(self) -> Iterator[_Writer]:
        """A writer into a temporary file (0600, `mkstemp`'s), placed under its SHA-256 (0400)
        when the block ends well, deleted in any case."""
        with self._room_needed():
            target_dir = self.root / "sha256"
            _owner_only_dir(self.root)
            _owner_only_dir(target_dir)
            descriptor, temporary = tempfile.mkstemp(dir=target_dir, prefix=".incoming-")
            writer = _Writer(os.fdopen(descriptor, "wb"))
            try:
                yield writer
                target = self.path(writer.finish().sha256)
                if not target.exists():
                    _owner_only_dir(target.parent)
                    os.chmod(temporary, FILE_MODE)
                    os.replace(temporary, target)
                    _fsync_dir(target.parent)
                elif target.stat().st_mode & 0o777 != FILE_MODE:  # kept by an earlier version
                    target.chmod(FILE_MODE)
            finally:
                with suppress(OSError):  # what it still buffers has no room either
                    writer.file.close()
                if os.path.exists(temporary):
                    os.unlink(temporary)

    @contextmanager
    def _room_needed(self) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise ArtifactStoreFull(
                f"the artifact store at {self.root} has no room left ({e.strerror}): the "
                "evidence file was not stored; make room and run again"
            ) from e


FILE_MODE, DIR_MODE = 0o400, 0o700
"""Issue 26: evidence files, written once, readable by their owner only; their folders open to
their owner only."""


def _owner_only_dir(path: Path) -> None:
    """A folder of the store, made 0700 (or made so, where an earlier version left it open; a
    folder given to us by someone else, a mount point, stays theirs to set)."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o777 != DIR_MODE:
        with suppress(PermissionError):
            path.chmod(DIR_MODE)


def _fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
