"""Masking spans of terminal text that runs across many pieces (the events of a recording, the
blocks of a log), with ANSI escape sequences anywhere in it, in bounded memory.

A span is found in the text as a reader sees it (escape sequences removed). A stage with a
marker replaces each stretch of a span (between line ends) by its marker, whatever its length,
and drops the rest of it from the pieces it ran across, escape sequences and line ends kept: a
mask says where something was, never how long it was, and every piece (a recording's event)
stays, with its time. A stage without one masks in place, character for character. Several
stages run in order over the same pieces in one pass, each seeing the text as the stage before
it left it (masked in place there, so every offset still holds).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import accumulate
from operator import add
from typing import NamedTuple

from domain.evidence.scan import Scanner

ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window titles, links
    r"|[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    r"|[ -/]*[0-~])"  # the others: ESC 7, ESC c, ESC ( B, ...
)
REACH = 1 << 16
"""The longest span looked for, in characters: text this close to the end waits for more."""
_DESIGNATIONS = (
    r"[()*+](?:[0<>AB4C5RfQ9KY`E6ZH7=]|%[0-6=]|\"[4>?]|&[45])"  # G0-G3: a 94-character set
    r"|[-./][ABFHLM]"  # G1-G3: a 96-character set
    r"|\$[()*+\-./]?[@A-D]"  # a multibyte set (ISO 2022)
    r"| [FGLMN]|#[34568]|%[@G]"  # 7- or 8-bit controls, conformance; DEC line size; UTF-8
)
"""The escape sequences with intermediate bytes (ECMA-35's nF) that a terminal defines (xterm's
"Controls beginning with ESC")."""
_ESCAPES = re.compile(
    r"(\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\"
    r"|" + _DESIGNATIONS + r"|[6-9=><DEHMNOZVWcFlmno|}~]))"
)
"""The escape sequences a terminal defines, hidden from the finders. An ESC before anything
else (a stray one: `ESC C`, `ESC $ s`) hides only itself there: a terminal drops what follows
with it, but a reader of the file sees it, and a keyword it begins (`Cookie:`, `$ sshpass`)
must still be read."""
_UNDECODED = re.compile("[\udc80-\udcff]")
"""Bytes that were not UTF-8, as the surrogateescape error handler decodes them."""
CHUNK = 1 << 20


class Span(NamedTuple):
    start: int
    end: int
    kind: str


class Found(NamedTuple):
    spans: list[Span]
    open_from: int | None
    """Where an unfinished match begins (its end may come in later pieces), if any."""


Finder = Callable[[str], Found]


class Stage(NamedTuple):
    finder: Finder
    mask: str = "*"
    keep: str = "\r\n"
    on_open: str = "a match never ended"
    sign: str | None = None
    """An RE2 pattern that matches where each span the finder finds begins, or before it on the
    same line: text without it is not given to the finder, nor the lines before its first
    match. None: the finder reads every text."""
    marker: str | None = None
    """What each stretch of a span becomes, once, whatever its length (None: `mask` in place,
    character for character)."""


class Settled(NamedTuple):
    """The pieces now final, in the order fed, as they came; `edits[s]` holds, by index among
    them, each piece that stage `s` (with the stages before it) changed."""

    pieces: list[str]
    edits: list[dict[int, str]]


class Withhold(Exception):
    """The text cannot be shown to be safe: the whole evidence must be withheld."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Masker:
    """Feed pieces in order; learn, once they are settled, how each stage changed them.

    Pieces are settled only up to a point no span crosses, so what is still held is always the
    original text, searched again whole when more arrives: a span is never cut in two.
    """

    def __init__(self, stages: Sequence[Stage], *, reach: int = REACH, chunk: int = CHUNK) -> None:
        self.stages = list(stages)
        self.reach, self.chunk = reach, chunk
        signs = [f"(?:{stage.sign})" for stage in self.stages if stage.sign is not None]
        self.signs = Scanner("|".join(signs)) if len(signs) > 1 else None
        """One scan for the signs of several stages, up to the first: most of a large file has
        none, and is then read once, not once a stage; the rest is read from the first one's
        line. One stage's finder reads a window once anyway: no sign scan before it."""
        self.pending: list[str] = []
        self.size = 0
        self.counts: list[Counter[str]] = [Counter() for _ in self.stages]

    def feed(self, pieces: Sequence[str]) -> Settled:
        self.pending.extend(pieces)
        self.size += sum(map(len, pieces))
        if self.size < self.chunk + self.reach:
            return Settled([], [{} for _ in self.stages])
        return self._process(final=False)

    def close(self) -> Settled:
        return self._process(final=True)

    def _process(self, *, final: bool) -> Settled:
        pieces = self.pending
        raw = "".join(pieces)
        layout = Layout(raw)
        text = layout.text
        safe = len(text) if final else max(len(text) - self.reach, 0)
        starts = [0, *accumulate(map(len, pieces))]
        raw_edits = _RawEdits(pieces, starts, raw, layout)
        changed: dict[int, str] = {}
        found: list[list[Span]] = []
        edits = []
        # Only a window of a large file: the automaton of the signs is worth building there.
        first = None if final or self.signs is None else self.signs.first(text)
        quiet = not final and self.signs is not None and first is None
        line = 0 if first is None else text.rfind("\n", 0, first) + 1
        for stage in self.stages:
            # With no sign in the text, a stage whose sign it is finds nothing, and with one,
            # nothing before its line, as long as the stages before it left that text as it was.
            if stage.sign is None:
                hit = stage.finder(text)
            elif quiet and not any(found):
                hit = Found([], None)
            else:
                kept = all(span.start >= line for spans in found for span in spans)
                hit = _found_from(stage.finder, text, line if kept else 0)
            if hit.open_from is not None:
                if final or len(text) - hit.open_from > self.reach:
                    raise Withhold(stage.on_open)
                safe = min(safe, hit.open_from)
            spans = [span for span in hit.spans if span.start < safe]
            if spans:
                text = _masked(text, spans, stage)
                changed = raw_edits.mask(spans, stage)
            found.append(spans)
            edits.append(changed)
        ready = len(pieces) if final else bisect_right(starts, layout.to_raw(safe)) - 1
        ready = _no_span_cut(ready, found, starts, layout)
        boundary = layout.to_visible(starts[ready])
        for counts, spans in zip(self.counts, found, strict=True):
            counts.update(span.kind for span in spans if span.end <= boundary)
        self.pending = pieces[ready:]
        self.size = starts[-1] - starts[ready]
        return Settled(pieces[:ready], [{i: t for i, t in e.items() if i < ready} for e in edits])


class Layout:
    """Where the escape sequences of a text are: visible offsets to raw ones and back."""

    def __init__(self, raw: str) -> None:
        parts = _ESCAPES.split(raw) if "\x1b" in raw else [raw]
        text = "".join(parts[::2])
        self.text = text if text.isascii() else _UNDECODED.sub("\ufffd", text)
        """The visible text (a byte that was not UTF-8 shown as U+FFFD, one character still)."""
        lengths = list(map(len, parts[1::2]))
        self.hidden = [0, *accumulate(lengths)]
        """Characters hidden before each escape sequence, and in all of them (the last)."""
        self.visible_at = list(accumulate(map(len, parts[:-1:2])))
        self.starts = list(map(add, self.visible_at, self.hidden))
        self.ends = list(map(add, self.starts, lengths))

    def to_raw(self, visible: int) -> int:
        """Where a visible character is in the raw text (after the escapes before it)."""
        return visible + self.hidden[bisect_right(self.visible_at, visible)]

    def to_visible(self, raw: int) -> int:
        """How many visible characters come before a raw offset."""
        before = bisect_left(self.starts, raw)
        hidden = self.hidden[before]
        if before and raw < self.ends[before - 1]:  # inside an escape sequence
            hidden -= self.ends[before - 1] - raw
        return raw - hidden


def _found_from(finder: Finder, text: str, start: int) -> Found:
    """What `finder` finds in the text from `start` on, at offsets in the whole text."""
    if not start:
        return finder(text)
    hit = finder(text[start:])
    return Found(
        [Span(s.start + start, s.end + start, s.kind) for s in hit.spans],
        None if hit.open_from is None else hit.open_from + start,
    )


def _masked(text: str, spans: list[Span], stage: Stage) -> str:
    parts, last = [], 0
    for start, end, _ in sorted(spans):
        begin = max(start, last)
        parts += [text[last:begin], _mask_chars(text[begin:end], stage)]
        last = max(end, last)
    parts.append(text[last:])
    return "".join(parts)


def _mask_chars(text: str, stage: Stage) -> str:
    return "".join(c if c in stage.keep else stage.mask for c in text)


class _RawEdits:
    """The pieces the spans of the stages so far touched, masked in their raw text."""

    def __init__(self, pieces: list[str], starts: list[int], raw: str, layout: Layout) -> None:
        self.pieces, self.starts, self.raw, self.layout = pieces, starts, raw, layout
        self.chars: dict[int, list[str]] = {}

    def mask(self, spans: list[Span], stage: Stage) -> dict[int, str]:
        for start, end in _merged(spans):
            first = True  # the first character of a stretch carries the marker
            for visible in range(start, end):
                r = self.layout.to_raw(visible)
                if self.raw[r] in stage.keep:
                    first = True
                    continue
                index = bisect_right(self.starts, r) - 1
                piece = self.chars.get(index)
                if piece is None:
                    piece = self.chars[index] = list(self.pieces[index])
                piece[r - self.starts[index]] = _replacement(stage, first)
                first = False
        return {i: "".join(c) for i, c in self.chars.items()}


def _replacement(stage: Stage, first: bool) -> str:
    """A masked character's text in the pieces: the marker for the first of a stretch and
    nothing for the others, or (no marker) the mask character."""
    if stage.marker is None:
        return stage.mask
    return stage.marker if first else ""


def _merged(spans: list[Span]) -> list[tuple[int, int]]:
    """The spans' extents, overlapping ones joined: one stretch, one marker."""
    merged: list[tuple[int, int]] = []
    for start, end, _ in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _no_span_cut(ready: int, found: list[list[Span]], starts: list[int], layout: Layout) -> int:
    """Move the settling point before any span it would cut in two."""
    while ready > 0:
        boundary = layout.to_visible(starts[ready])
        crossing = [s.start for spans in found for s in spans if s.start < boundary < s.end]
        if not crossing:
            return ready
        ready = bisect_right(starts, layout.to_raw(min(crossing))) - 1
    return 0


def mask_text(stages: Sequence[Stage], text: str) -> tuple[str, list[Counter[str]]]:
    """One text on its own through the stages."""
    masker = Masker(stages)
    masker.feed([text])
    return masker.close().edits[-1].get(0, text), masker.counts
