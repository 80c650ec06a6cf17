"""The outside things the use cases need, as small interfaces; `api/wiring.py` plugs in the
adapters, tests plug in fakes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, runtime_checkable

from domain.events import Fingerprint
from domain.presentation import Frame
from domain.siiq.crosscheck import Claim
from domain.siiq.snapshots import Answer


class Writer(Protocol):
    """A file being stored: its bytes written in order, its fingerprint known once it ends."""

    def write(self, chunk: bytes) -> None: ...

    @property
    def fingerprint(self) -> Fingerprint | None: ...


@runtime_checkable
class EvidenceStore(Protocol):
    """Content-addressed evidence: every file kept whole under its SHA-256, never changed."""

    def source(self, path: Path) -> Iterator[bytes]:
        """A file to be received (an evidence file a record names), in chunks."""
        ...

    def storing(self) -> AbstractContextManager[Writer]:
        """Store the bytes written, under their SHA-256, when the block ends without an error."""
        ...

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint: ...

    def read(self, sha256: str) -> Iterator[bytes]: ...


class Renderer(Protocol):
    """Section 17, the presentation layer: a recording's output replayed frame by frame as
    planned (`domain.presentation.frame_plan`), `heading` on every frame, encoded as `kind`
    (gif or mp4); the same arguments give the same bytes."""

    fps: int

    def versions(self) -> dict[str, str]: ...

    def render(
        self,
        size: tuple[int, int],
        texts: Sequence[str],
        frames: Sequence[Frame],
        heading: Sequence[str],
        kind: str,
    ) -> bytes: ...


Banners = Callable[[str], list[str]]
"""A harness's start-up banner patterns (section 17, neutral branding)."""


class SourceReading(Protocol):
    """Reads one configured SI-IQ source address now (SI-IQ section 8): conditionally on the
    validators and SHA-256 of the file held as current, archiving what comes; never raises for
    a source's failure, which the `Answer` carries."""

    def read(
        self,
        source: str,
        address: str,
        etag: str | None,
        last_modified: str | None,
        current: str | None,
    ) -> Answer: ...


class CrossChecking(Protocol):
    """SI-IQ section 8's checker, a model of another family: its answer to each claim, in
    order; raises `CrossCheckUnavailable` when it does not answer."""

    name: str
    family: str
    """The checker model's family (section 8: another than the model's whose number it reads)."""

    def ask(self, claims: Sequence[Claim]) -> list[str]: ...
