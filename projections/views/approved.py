"""What every public document carries: the position the public sees and the signed checkpoint
an operator approved it at (methodology section 1)."""

from __future__ import annotations

import msgspec


class Approved(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    root: str
    """The Merkle root of the first `position` events (hex)."""
    note: str
    """The signed checkpoint note of that tree."""
