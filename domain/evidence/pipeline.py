"""Deriving the served copy of a recording or a log: the transforms of section 17 in order, in
one pass over the stream, each application with its input and output SHA-256 and counts."""

from __future__ import annotations

import codecs
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple

import msgspec

from domain.evidence import branding, generated_keys, redaction
from domain.evidence.asciicast import header_line, parse_chunks, with_data
from domain.evidence.masking import Masker, Settled, Stage, mask_text

MASK_HEADERS = frozenset({redaction.NAME, generated_keys.NAME})
"""The transforms a recording's header strings pass too (they mask secrets)."""
SECTION_17: tuple[tuple[str, int], ...] = (
    (redaction.NAME, redaction.VERSION),
    (generated_keys.NAME, generated_keys.VERSION),
    (branding.NAME, branding.VERSION),
)
"""Section 17's transforms in the order `section_17` applies them, with their versions: security
redaction before anything is stored, the other two on the served copy only."""
LOG_PIECE = 1 << 16
"""Log text is fed in pieces this long: only the piece a span may cross waits for more."""


class Transform(NamedTuple):
    name: str
    version: int
    stage: Stage


class Applied(msgspec.Struct, frozen=True, kw_only=True):
    """One transform applied to one file: never the secret itself, only what and how many."""

    transform: str
    version: int
    input_sha256: str
    output_sha256: str
    counts: dict[str, int]


def security_redaction(model_keys: Iterable[str]) -> list[Transform]:
    """Section 17, applied as the bytes arrive, before anything is stored: credentials."""
    finder = redaction.CredentialFinder(list(model_keys))
    stage = Stage(finder, sign=finder.sign, marker=redaction.MARKER)
    return [Transform(redaction.NAME, redaction.VERSION, stage)]


def presentation(banners: Iterable[str]) -> list[Transform]:
    """Section 17, on the served copy only: generated-key masking, then neutral branding."""
    banner = branding.BannerFinder(list(banners))
    return [
        Transform(
            generated_keys.NAME,
            generated_keys.VERSION,
            Stage(
                generated_keys.find_key_bodies,
                on_open=generated_keys.OPEN_REASON,
                sign=generated_keys.BEGIN.pattern,
                marker=generated_keys.MARKER,
            ),
        ),
        Transform(branding.NAME, branding.VERSION, Stage(banner, mask=" ", sign=banner.sign)),
    ]


def section_17(model_keys: Iterable[str], banners: Iterable[str]) -> list[Transform]:
    """Security redaction, then generated-key masking, then neutral branding."""
    return security_redaction(model_keys) + presentation(banners)


class _Outputs:
    """The SHA-256 of each transform's output; outputs that never differed share one digest."""

    def __init__(self, count: int) -> None:
        self.digests = [hashlib.sha256()] * count

    def update(self, outputs: list[bytes]) -> None:
        before = list(self.digests)
        for i in range(1, len(outputs)):
            if before[i] is before[i - 1]:
                same = outputs[i] is outputs[i - 1]
                self.digests[i] = self.digests[i - 1] if same else before[i - 1].copy()
        for i, (digest, output) in enumerate(zip(self.digests, outputs, strict=True)):
            if i == 0 or digest is not self.digests[i - 1]:
                digest.update(output)


class Derivation:
    """Streams one file through the transforms; `applied` is complete once the output was read.

    Each transform's output is hashed as it leaves that transform, so every step can be checked
    on its own: the input of one is the output of the one before it.
    """

    def __init__(self, transforms: Sequence[Transform]) -> None:
        self.transforms = list(transforms)
        self.masker = Masker([t.stage for t in transforms])
        self.header_counts: list[Counter[str]] = [Counter() for _ in transforms]
        self.input = hashlib.sha256()
        self.outputs = _Outputs(len(transforms))

    def applied(self) -> list[Applied]:
        hashes = [self.input.hexdigest(), *(d.hexdigest() for d in self.outputs.digests)]
        counts = [h + m for h, m in zip(self.header_counts, self.masker.counts, strict=True)]
        return [
            Applied(
                transform=t.name,
                version=t.version,
                input_sha256=hashes[i],
                output_sha256=hashes[i + 1],
                counts=dict(sorted(counts[i].items())),
            )
            for i, t in enumerate(self.transforms)
        ]

    def _emit(
        self, edits: list[dict[int, str]], render: Callable[[dict[int, str]], bytes]
    ) -> bytes:
        """Each transform's output of the settled part, hashed; the last one is what is served."""
        outputs: list[bytes] = []
        for i, changed in enumerate(edits):
            same = i > 0 and changed == edits[i - 1]
            outputs.append(outputs[-1] if same else render(changed))
        self.outputs.update(outputs)
        return outputs[-1]

    def log(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """A plain log (bytes that are not UTF-8 pass through as they were)."""
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

        def out(settled: Settled) -> Iterator[bytes]:
            if settled.pieces:

                def render(changed: dict[int, str]) -> bytes:
                    pieces = enumerate(settled.pieces)
                    text = "".join(changed.get(i, piece) for i, piece in pieces)
                    return text.encode("utf-8", "surrogateescape")

                yield self._emit(settled.edits, render)

        for chunk in chain(self._read(chunks), [b""]):
            text = decoder.decode(chunk, final=not chunk)
            pieces = [text[i : i + LOG_PIECE] for i in range(0, len(text), LOG_PIECE)]
            yield from out(self.masker.feed(pieces))
        yield from out(self.masker.close())

    def cast(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """An asciicast recording: the header's strings and the text of output and input events;
        times, codes and every other line stay as they were."""
        header, first, blocks = parse_chunks(self._read(chunks))
        first = self._header(header, first)
        self.outputs.update([first] * len(self.transforms))
        yield first
        held: list[bytes] = []  # lines read, not yet settled; the first is line number `base`
        text_at: list[int] = []
        base = 0

        def out(settled: Settled, *, final: bool = False) -> Iterator[bytes]:
            nonlocal base
            count = len(settled.pieces)
            if not count and not final:
                return
            cut = text_at[count] - base if count < len(text_at) else len(held)
            done, at, first = held[:cut], text_at[:count], base
            del held[:cut], text_at[:count]
            base += cut

            def render(changed: dict[int, str]) -> bytes:
                lines = list(done) if changed else done
                for i, data in changed.items():
                    lines[at[i] - first] = with_data(lines[at[i] - first], data)
                return b"".join(lines)

            yield self._emit(settled.edits, render)

        for block in blocks:
            text_at += block.text_at
            held += block.lines
            yield from out(self.masker.feed(block.texts))
        yield from out(self.masker.close(), final=True)

    def _read(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.input.update(chunk)
            yield chunk

    def _header(self, header: dict[str, Any], first: bytes) -> bytes:
        """Credentials and private key bodies in the header's strings (a command, a title, an
        environment value) are masked; branding concerns the terminal text only."""
        masking = [i for i, t in enumerate(self.transforms) if t.name in MASK_HEADERS]
        if not masking:
            return first
        stages = [self.transforms[i].stage for i in masking]

        def clean(value: Any) -> Any:
            if isinstance(value, str):
                text, counts = mask_text(stages, value)
                for i, found in zip(masking, counts, strict=True):
                    self.header_counts[i].update(found)
                return text
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items()}
            if isinstance(value, list):
                return [clean(v) for v in value]
            return value

        cleaned = clean(header)
        return first if cleaned == header else header_line(cleaned)
