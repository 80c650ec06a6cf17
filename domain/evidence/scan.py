"""Linear-time scans of terminal text with RE2: a text that is all ASCII is scanned as its
bytes, whose offsets are its characters' (RE2 reads UTF-8, so a `str` costs an encoding and an
offset conversion per match)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any

import re2

_LARGE = re2.Options()
_LARGE.max_mem = 64 << 20  # the fragments of a long key make a large automaton


class Scanner:
    """One RE2 pattern, compiled for text and for ASCII bytes, each when first needed (a large
    automaton takes tens of milliseconds to build, and a small file needs one of them)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    @cached_property
    def text(self) -> Any:
        return re2.compile(self.pattern, options=_LARGE)

    @cached_property
    def ascii(self) -> Any:
        return re2.compile(self.pattern.encode(), options=_LARGE)

    def finditer(self, text: str) -> Iterator[Any]:
        """Matches whose spans are offsets in `text` (use them, not the matched values)."""
        if text.isascii():
            return self.ascii.finditer(text.encode("ascii"))  # type: ignore[no-any-return]
        return self.text.finditer(text)  # type: ignore[no-any-return]

    def first(self, text: str) -> int | None:
        """Where the first match begins, if there is one."""
        if text.isascii():
            found = self.ascii.search(text.encode("ascii"))
        else:
            found = self.text.search(text)
        return None if found is None else found.start()

    def search(self, text: str) -> bool:
        return self.first(text) is not None
