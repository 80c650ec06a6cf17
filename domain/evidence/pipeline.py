"""Deriving the served copy of a recording or a log: the transforms of section 17 in order, each
a pure stage over the stream, each application with its input and output SHA-256 and counts."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import msgspec

from domain.evidence import branding, keys, redaction
from domain.evidence.asciicast import CastLine, header_line, parse
from domain.evidence.masking import Finder, Masker


class Transform(NamedTuple):
    name: str
    version: int
    finder: Finder
    mask: str = "*"
    on_open: str = ""


class Applied(msgspec.Struct, frozen=True, kw_only=True):
    """One transform applied to one file: never the secret itself, only what and how many."""

    transform: str
    version: int
    input_sha256: str
    output_sha256: str
    counts: dict[str, int]


def section_17(model_keys: Iterable[str], banners: Iterable[str]) -> list[Transform]:
    """Security redaction, then generated-key masking, then neutral branding."""
    return [
        Transform(redaction.NAME, redaction.VERSION, redaction.CredentialFinder(list(model_keys))),
        Transform(keys.NAME, keys.VERSION, keys.find_key_bodies, on_open=keys.OPEN_REASON),
        Transform(branding.NAME, branding.VERSION, branding.BannerFinder(list(banners)), mask=" "),
    ]


class _Tap:
    """Hashes what flows past it."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def __call__(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.digest.update(chunk)
            yield chunk


class Derivation:
    """Streams a file through the transforms; `applied` is complete once the output was read."""

    def __init__(self, transforms: list[Transform]) -> None:
        self.transforms = transforms
        self.maskers = [Masker(t.finder, mask=t.mask, on_open=t.on_open) for t in transforms]
        self.taps = [_Tap() for _ in range(len(transforms) + 1)]

    def applied(self) -> list[Applied]:
        hashes = [tap.digest.hexdigest() for tap in self.taps]
        return [
            Applied(
                transform=t.name,
                version=t.version,
                input_sha256=hashes[i],
                output_sha256=hashes[i + 1],
                counts=dict(sorted(m.counts.items())),
            )
            for i, (t, m) in enumerate(zip(self.transforms, self.maskers, strict=True))
        ]

    def log(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """A plain log, line by line (bytes that are not UTF-8 pass through as they were)."""
        stream: Iterator[bytes] = self.taps[0](chunks)
        for masker, tap in zip(self.maskers, self.taps[1:], strict=True):
            stream = tap(_log_stage(stream, masker))
        return stream

    def cast(self, lines: Iterable[bytes]) -> Iterator[bytes]:
        """An asciicast recording: header values and the text of output and input events."""
        header, first, events = parse(self.taps[0](lines))
        first = _header_stage(header, first, self.maskers[0])
        flow: Iterator[CastLine] = events
        for masker, tap in zip(self.maskers, self.taps[1:], strict=True):
            tap.digest.update(first)
            flow = _hashed(_cast_stage(flow, masker), tap)
        yield first
        for line in flow:
            yield line.encoded()


def _hashed(lines: Iterable[CastLine], tap: _Tap) -> Iterator[CastLine]:
    """A stage's output as it leaves the stage, before the next one masks anything more."""
    for line in lines:
        tap.digest.update(line.encoded())
        yield line


def _log_stage(chunks: Iterable[bytes], masker: Masker) -> Iterator[bytes]:
    for chunk in chunks:
        for piece in masker.feed(chunk.decode("utf-8", "surrogateescape")):
            yield piece.encode("utf-8", "surrogateescape")
    for piece in masker.close():
        yield piece.encode("utf-8", "surrogateescape")


def _header_stage(header: dict[str, Any], first: bytes, masker: Masker) -> bytes:
    """Credentials in the header's strings (a command, a title, an environment value)."""
    changed = False

    def clean(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, str):
            out = "".join(masker.feed(value) + masker.close())
            changed |= out != value
            return out
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    cleaned = clean(header)
    return header_line(cleaned) if changed else first


def _cast_stage(lines: Iterable[CastLine], masker: Masker) -> Iterator[CastLine]:
    """Text events go through the masker in order; every line comes out in its place."""
    waiting: deque[CastLine] = deque()
    unmasked: deque[CastLine] = deque()

    def settle(pieces: list[str]) -> None:
        for piece in pieces:
            unmasked.popleft().replace_data(piece)

    for line in lines:
        waiting.append(line)
        if line.is_text:
            unmasked.append(line)
            settle(masker.feed(line.data))
        while waiting and (not unmasked or waiting[0] is not unmasked[0]):
            yield waiting.popleft()
    settle(masker.close())
    yield from waiting
