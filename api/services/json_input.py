"""JSON from outside (input records, operator action files, request bodies), read in bounded
memory: no record may be longer than `MAX_RECORD_BYTES` nor nested deeper than the decoder goes
(about a thousand levels); each is refused with a sentence saying which limit, never a
traceback. Files of JSON lines are read a line at a time, so a line of any length costs at
most one record's worth of memory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

import msgspec

from domain.errors import InvalidInput

MAX_RECORD_BYTES = 8 * 1024 * 1024
"""One record: a line of JSON lines, an element of a JSON array, a whole JSON object (a run
record with its report is a few kilobytes, a cycle with its pool a few hundred)."""
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
"""A file read whole, as one JSON array or object; larger files are read as JSON lines."""
TOO_DEEP = "nested deeper than a record may be (about 1,000 levels)"
_SKIP = 1 << 20

T = TypeVar("T")


class TooLong(InvalidInput):
    """A record over `MAX_RECORD_BYTES`."""

    def __init__(self, size: int) -> None:
        super().__init__(
            f"a record of {size:,} bytes or more; a record may be at most {MAX_RECORD_BYTES:,}"
        )


def decoded(decoder: msgspec.json.Decoder[T], data: bytes) -> T:
    """`data` decoded; too long or too deeply nested is `InvalidInput`, and msgspec's own
    errors (not JSON, not the type) pass as they are, for the caller to word."""
    if len(data) > MAX_RECORD_BYTES:
        raise TooLong(len(data))
    try:
        return decoder.decode(data)
    except RecursionError as e:  # msgspec's refusal of deep nesting, raised before the stack
        raise InvalidInput(TOO_DEEP) from e


def shown_path(path: Path) -> str:
    """A file name as text any output can carry: bytes that are not UTF-8 (a name made on
    another system) as `\\xNN`, not as the lone surrogates Python reads them into."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def read_record_file(path: Path) -> bytes:
    """A file that holds one record (an operator's action): its bytes, if not over the limit."""
    with path.open("rb") as file:
        data = file.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise TooLong(len(data))
    return data


def lines(path: Path) -> Iterator[tuple[int, bytes | TooLong]]:
    """The non-blank lines of a JSON lines file, numbered from 1, each read whole only when it
    is within the limit (a longer one is skipped through and given as its refusal)."""
    with path.open("rb") as file:
        number = 0
        while line := file.readline(MAX_RECORD_BYTES + 1):
            number += 1
            if len(line) > MAX_RECORD_BYTES and not line.endswith(b"\n"):
                yield number, TooLong(len(line) + _rest_of_line(file))
            elif line.strip():
                yield number, line


def _rest_of_line(file: BinaryIO) -> int:
    skipped = 0
    while piece := file.readline(_SKIP):
        skipped += len(piece)
        if piece.endswith(b"\n"):
            break
    return skipped
