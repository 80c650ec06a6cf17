"""C2SP tlog-tiles (c2sp.org/tlog-tiles, "Merkle Tree"): the tree served as tiles, each the
hashes of up to 256 consecutive nodes of one level of the RFC 9162 tree. Pure; standard library
only.

The n-th tile at level l holds, for i from 0 to its width - 1, MTH(D[(n * 256 + i) * 256**l :
(n * 256 + i + 1) * 256**l]): the nodes of tree level 8 * l. A full tile is 256 hashes wide;
a partial one, 1 to 255 (`.p/<W>`)."""

from __future__ import annotations

from typing import NamedTuple

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
MAX_LEVEL = 63


class TileError(ValueError):
    """A tile path not written as the spec writes it."""


class Tile(NamedTuple):
    """A hash tile: its level, its number N within the level and its width (256 when full)."""

    level: int
    number: int
    width: int

    @property
    def tree_level(self) -> int:
        """The level of the tree its hashes are nodes of."""
        return self.level * TILE_HEIGHT

    @property
    def first(self) -> int:
        """The index, within its tree level, of the tile's first node."""
        return self.number * TILE_WIDTH

    @property
    def leaves(self) -> int:
        """How many leaves the tree needs for every hash of the tile to be in it."""
        return (self.first + self.width) << self.tree_level

    @property
    def path(self) -> str:
        """`<L>/<N>[.p/<W>]`, N in 3-digit elements, all but the last starting with `x`."""
        digits = f"{self.number:d}"
        digits = digits.zfill(-(-len(digits) // 3) * 3)
        groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
        index = "/".join([*(f"x{g}" for g in groups[:-1]), groups[-1]])
        partial = "" if self.width == TILE_WIDTH else f".p/{self.width}"
        return f"{self.level}/{index}{partial}"


def _decimal(text: str, what: str) -> int:
    """A decimal ASCII integer with no additional leading zeroes."""
    if not text.isascii() or not text.isdigit() or (len(text) > 1 and text[0] == "0"):
        raise TileError(f"{what} {text!r} is not a decimal number without leading zeroes")
    return int(text)


def parse_tile(level: str, index_path: str) -> Tile:
    """tlog-tiles "Merkle Tree": the tile `<level>/<index_path>`, `index_path` being `<N>` or
    `<N>.p/<W>`."""
    at = _decimal(level, "tile level")
    if at > MAX_LEVEL:
        raise TileError(f"tile level {at} is above {MAX_LEVEL}")
    elements, partial, width_text = index_path.partition(".p/")
    width = _decimal(width_text, "tile width") if partial else TILE_WIDTH
    if not 1 <= width <= TILE_WIDTH - 1 and partial:
        raise TileError(f"a partial tile's width is 1 to {TILE_WIDTH - 1}, not {width}")
    parts = elements.split("/")
    wrong = [p for p in parts[:-1] if not (len(p) == 4 and p[0] == "x" and p[1:].isdigit())]
    if wrong or not (len(parts[-1]) == 3 and parts[-1].isdigit()) or not parts[-1].isascii():
        raise TileError(f"tile index {elements!r} is not written as x001/x234/067")
    if len(parts) > 1 and parts[0] == "x000":
        raise TileError(f"tile index {elements!r} has a leading element of zeroes")
    return Tile(at, int("".join(p.removeprefix("x") for p in parts)), width)
