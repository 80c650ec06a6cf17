"""Fakes at the ports, and one bootstrap that plugs them in (cosmicpython's
`bootstrap.bootstrap(uow=FakeUnitOfWork(), ...)` shape): the use cases run without a filesystem
store; the ledger is a real one in a temporary SQLite file."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from api.wiring import Argusic, Settings, init
from domain.events import Fingerprint


class FakeWriter:
    def __init__(self) -> None:
        self.data = bytearray()
        self.fingerprint: Fingerprint | None = None

    def write(self, chunk: bytes) -> None:
        self.data += chunk


class FakeEvidenceStore:
    """Files kept in memory by SHA-256; counts how often each source file was read."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.reads: Counter[Path] = Counter()

    def source(self, path: Path) -> Iterator[bytes]:
        self.reads[path] += 1
        content = path.read_bytes()
        for i in range(0, len(content), 7):  # small chunks, so a span may cross them
            yield content[i : i + 7]

    @contextmanager
    def storing(self) -> Iterator[FakeWriter]:
        writer = FakeWriter()
        yield writer
        writer.fingerprint = self._keep(bytes(writer.data))

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint:
        return self._keep(b"".join(chunks))

    def read(self, sha256: str) -> Iterator[bytes]:
        yield self.files[sha256]

    def _keep(self, data: bytes) -> Fingerprint:
        digest = hashlib.sha256(data).hexdigest()
        self.files[digest] = data
        return Fingerprint(sha256=digest, bytes=len(data))


def bootstrap(
    folder: Path, store: FakeEvidenceStore | None = None, banners: list[str] | None = None
) -> Argusic:
    """The application over a fresh SQLite ledger, with the fakes given (or new ones)."""
    settings = Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json")
    ledger, _ = init(settings)
    return Argusic(
        settings, ledger, store=store or FakeEvidenceStore(), banners=lambda _: banners or []
    )
