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


class FakeArrival:
    def __init__(self, source: Path, store: FakeEvidenceStore) -> None:
        self.store, self.data = store, bytearray()
        self.fingerprint_: Fingerprint | None = None
        self._chunks = self._passing(source)

    def _passing(self, source: Path) -> Iterator[bytes]:
        self.store.reads[source] += 1
        content = source.read_bytes()
        for i in range(0, len(content), 7):  # small chunks, so a span may cross them
            self.data += content[i : i + 7]
            yield content[i : i + 7]

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    @property
    def fingerprint(self) -> Fingerprint:
        assert self.fingerprint_ is not None, "read before the arrival ended"
        return self.fingerprint_


class FakeEvidenceStore:
    """Files kept in memory by SHA-256; counts how often each source file was read."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.reads: Counter[Path] = Counter()

    @contextmanager
    def receive(self, source: Path) -> Iterator[FakeArrival]:
        arrival = FakeArrival(source, self)
        yield arrival
        for _ in arrival:
            pass
        arrival.fingerprint_ = self._keep(bytes(arrival.data))

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
