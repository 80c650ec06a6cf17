"""RFC 9162 section 2.1, written the way the RFC writes it: recursive MTH, PATH and PROOF.

An independent reference for the tests: nothing here comes from `ledger.merkle`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache


class Tree:
    def __init__(self, entries: Sequence[bytes]) -> None:
        self.entries = tuple(entries)
        self.mth = lru_cache(maxsize=None)(self._mth)

    def _mth(self, start: int, end: int) -> bytes:
        """MTH(D[start:end])."""
        n = end - start
        if n == 0:
            return hashlib.sha256(b"").digest()
        if n == 1:
            return hashlib.sha256(b"\x00" + self.entries[start]).digest()
        k = 1
        while k * 2 < n:
            k *= 2
        return hashlib.sha256(
            b"\x01" + self.mth(start, start + k) + self.mth(start + k, end)
        ).digest()

    def path(self, m: int, start: int, end: int) -> list[bytes]:
        """PATH(m, D[start:end])."""
        n = end - start
        if n == 1:
            return []
        k = 1
        while k * 2 < n:
            k *= 2
        if m < k:
            return self.path(m, start, start + k) + [self.mth(start + k, end)]
        return self.path(m - k, start + k, end) + [self.mth(start, start + k)]

    def proof(self, m: int, n: int) -> list[bytes]:
        """PROOF(m, D[n]) = SUBPROOF(m, D[n], true)."""
        return self._subproof(m, 0, n, True)

    def _subproof(self, m: int, start: int, end: int, b: bool) -> list[bytes]:
        n = end - start
        if m == n:
            return [] if b else [self.mth(start, end)]
        k = 1
        while k * 2 < n:
            k *= 2
        if m <= k:
            return self._subproof(m, start, start + k, b) + [self.mth(start + k, end)]
        return self._subproof(m - k, start + k, end, False) + [self.mth(start, start + k)]
