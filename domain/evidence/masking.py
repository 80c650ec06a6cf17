"""Masking spans of terminal text that runs across many pieces (the events of a recording, the
blocks of a log), with ANSI escape sequences anywhere in it, in bounded memory.

A span is found in the text as a reader sees it (escape sequences removed) and masked in place
character for character, escape sequences kept: every piece keeps its length, so a recording
keeps its layout (cursor moves) and every event its time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from itertools import accumulate
from typing import NamedTuple

ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window titles, links
    r"|[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    r"|[@-Z\\-_])"  # two-character sequences
)


class Span(NamedTuple):
    start: int
    end: int
    kind: str


class Found(NamedTuple):
    spans: list[Span]
    open_from: int | None
    """Where an unfinished match begins (its end may come in later pieces), if any."""


Finder = Callable[[str], Found]


class Withhold(Exception):
    """The text cannot be shown to be safe: the whole evidence must be withheld."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Masker:
    """Feed pieces in order; get them back in order, each masked where a span touched it."""

    def __init__(
        self,
        finder: Finder,
        *,
        mask: str = "*",
        keep: str = "\r\n",
        reach: int = 1 << 16,
        chunk: int = 1 << 20,
        on_open: str = "",
    ) -> None:
        self.finder, self.mask, self.keep = finder, mask, keep
        self.reach, self.chunk, self.on_open = reach, chunk, on_open
        self.pending: list[str] = []
        self.size = 0
        self.counts: Counter[str] = Counter()

    def feed(self, piece: str) -> list[str]:
        self.pending.append(piece)
        self.size += len(piece)
        return self._process(final=False) if self.size >= self.chunk + self.reach else []

    def close(self) -> list[str]:
        return self._process(final=True)

    def _process(self, *, final: bool) -> list[str]:
        raw = "".join(self.pending)
        escapes = [(m.start(), m.end()) for m in ANSI.finditer(raw)]
        visible = _visible(raw, escapes)
        found = self.finder(visible)
        safe = len(visible) if final else max(len(visible) - self.reach, 0)
        if found.open_from is not None:
            if final or len(visible) - found.open_from > self.reach:
                raise Withhold(self.on_open or "a match never ended")
            safe = min(safe, found.open_from)
        for span in found.spans:
            if span.start < safe < span.end:
                safe = span.start
        to_raw = _position_map(escapes)
        pieces = list(self.pending)
        starts = [0, *accumulate(len(p) for p in self.pending)]
        for span in found.spans:
            if span.end <= safe:
                self._mask(span, pieces, starts, raw, to_raw)
                self.counts[span.kind] += 1
        cut = to_raw(safe) if safe < len(visible) else len(raw)
        ready = bisect_right(starts, cut) - 1
        out, self.pending = pieces[:ready], pieces[ready:]
        if final:
            out, self.pending = pieces, []
        self.size = sum(len(p) for p in self.pending)
        return out

    def _mask(
        self,
        span: Span,
        pieces: list[str],
        starts: list[int],
        raw: str,
        to_raw: Callable[[int], int],
    ) -> None:
        edits: dict[int, list[str]] = {}
        for v in range(span.start, span.end):
            r = to_raw(v)
            if raw[r] in self.keep:
                continue
            index = bisect_right(starts, r) - 1
            chars = edits.setdefault(index, list(pieces[index]))
            chars[r - starts[index]] = self.mask
        for index, chars in edits.items():
            pieces[index] = "".join(chars)


def _visible(raw: str, escapes: list[tuple[int, int]]) -> str:
    if not escapes:
        return raw
    parts, last = [], 0
    for start, end in escapes:
        parts.append(raw[last:start])
        last = end
    parts.append(raw[last:])
    return "".join(parts)


def _position_map(escapes: list[tuple[int, int]]) -> Callable[[int], int]:
    """Visible offset to raw offset: each escape sequence before a visible character shifts it."""
    if not escapes:
        return lambda v: v
    visible_at, shift, total, removed = [], [0], 0, 0
    for start, end in escapes:
        visible_at.append(start - removed)
        removed += end - start
        total += end - start
        shift.append(total)
    return lambda v: v + shift[bisect_right(visible_at, v)]
