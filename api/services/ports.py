"""The outside things the use cases need, as small interfaces; `api/wiring.py` plugs in the
adapters, tests plug in fakes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, runtime_checkable

from domain.events import Fingerprint


@runtime_checkable
class Arrival(Protocol):
    """A source file read once, stored as it is read (see `EvidenceStore.receive`)."""

    def __iter__(self) -> Iterator[bytes]: ...

    @property
    def fingerprint(self) -> Fingerprint:
        """The SHA-256 and size of every byte of the file, known once the arrival ended."""
        ...


@runtime_checkable
class EvidenceStore(Protocol):
    """Content-addressed evidence: every file kept whole under its SHA-256, never changed."""

    def receive(self, source: Path) -> AbstractContextManager[Arrival]:
        """Read `source` once, storing what the reader takes and then what it leaves."""
        ...

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint: ...

    def read(self, sha256: str) -> Iterator[bytes]: ...


Banners = Callable[[str], list[str]]
"""A harness's start-up banner patterns (section 17, neutral branding)."""
