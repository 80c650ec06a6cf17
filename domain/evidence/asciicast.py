"""asciicast v2 and v3 terminal recordings (asciinema): a header line, then one
`[time, code, data]` event a line (v3: time is the interval since the previous event; lines
starting with `#` are comments). Parsed and re-emitted so that every time keeps its exact
text and every line nothing changed keeps its exact bytes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from io import BytesIO
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

import msgspec

VERSIONS = (2, 3)
TEXT_CODES = frozenset({"o", "i"})
"""Output and input events carry terminal text; markers, resizes and exits do not."""


class RecordingError(ValueError):
    """The bytes are not an asciicast v2 or v3 recording."""


class Block(NamedTuple):
    """Consecutive lines after the header, each as read and newline-terminated (blank lines and
    v3 comments pass through as they are), with which of them carry terminal text."""

    lines: list[bytes]
    text_at: list[int]
    """Which lines carry text, counted from the first line after the header."""
    texts: list[str]


BLOCK = 4096
"""Lines decoded at a time."""
MAX_LINE = 4 * 1024 * 1024
"""A recording's longest line (an event carries a few kilobytes of output at most): a longer
one is not a recording we can show, and is never held whole (issue 16: bounded memory)."""

_encode = msgspec.json.Encoder().encode
_event = msgspec.json.Decoder(tuple[float, str, str])
_raw_event = msgspec.json.Decoder(tuple[msgspec.Raw, str, str])
_header = msgspec.json.Decoder(dict[str, Any])


def parse(lines: Iterable[bytes]) -> tuple[dict[str, Any], bytes, Iterator[Block]]:
    """The header (decoded and as its exact line), and the lines after it in blocks, decoded
    lazily (a bad line raises RecordingError when its block is reached)."""
    source = iter(lines)
    first = next(source, b"")
    try:
        header = _header.decode(first)
    except msgspec.DecodeError as e:
        raise RecordingError(f"the first line is not a JSON header: {e}") from e
    except RecursionError as e:  # msgspec's refusal of deep nesting
        raise RecordingError("the header is nested too deeply") from e
    if header.get("version") not in VERSIONS:
        raise RecordingError(f"asciicast version {header.get('version')!r} is not 2 or 3")
    return (
        header,
        first if first.endswith(b"\n") else first + b"\n",
        _blocks(source, header["version"]),
    )


Event = tuple[float, str, str]


def _blocks(source: Iterator[bytes], version: int) -> Iterator[Block]:
    number = 0
    while batch := list(islice(source, BLOCK)):
        if not batch[-1].endswith(b"\n"):
            batch[-1] += b"\n"
        try:
            events = list(map(_event.decode, batch))
        except msgspec.DecodeError:
            yield _slow_block(batch, number, version)
        else:
            if TEXT_CODES.issuperset(map(itemgetter(1), events)):  # the common case: all text
                yield Block(
                    batch,
                    list(range(number, number + len(batch))),
                    list(map(itemgetter(2), events)),
                )
            else:
                yield _block(batch, number, events)
        number += len(batch)


def _slow_block(batch: list[bytes], number: int, version: int) -> Block:
    """A block with blank lines, comments or a bad line: decoded line by line."""
    return _block(
        batch,
        number,
        [_event_or_none(line, number + i, version) for i, line in enumerate(batch, 2)],
    )


def _block(batch: list[bytes], number: int, events: Sequence[Event | None]) -> Block:
    text_at = [i for i, event in enumerate(events, number) if event and event[1] in TEXT_CODES]
    return Block(batch, text_at, [events[i - number][2] for i in text_at])  # type: ignore[index]


def _is_event(line: bytes, version: int) -> bool:
    """Not a blank line, nor a comment (v3)."""
    return bool(line.strip()) and not (version == 3 and line.startswith(b"#"))


def _event_or_none(line: bytes, number: int, version: int) -> Event | None:
    if not _is_event(line, version):
        return None
    try:
        return _event.decode(line)
    except msgspec.DecodeError as e:
        raise RecordingError(f"line {number} is not a [time, code, data] event: {e}") from e


def split_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a file read in chunks, each with its newline (the last one may have none);
    a line growing past `MAX_LINE` is a RecordingError."""
    rest = b""
    for chunk in chunks:
        lines = BytesIO(rest + chunk).readlines()
        rest = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
        if len(rest) > MAX_LINE:
            raise RecordingError(f"a line longer than {MAX_LINE:,} bytes")
        yield from lines
    if rest:
        yield rest


def with_data(line: bytes, data: str) -> bytes:
    """An event line with its data replaced, its time kept as the exact text it had."""
    time, code, _ = _raw_event.decode(line)
    return b"[%s, %s, %s]\n" % (bytes(time), _encode(code), _encode(data))


def header_line(header: dict[str, Any]) -> bytes:
    return _encode(header) + b"\n"


def timings(chunks: Iterable[bytes]) -> list[bytes]:
    """The time of every event of a recording, as written: what a transform must leave as it
    was (raises RecordingError if the recording does not parse)."""
    header, _, blocks = parse(split_lines(chunks))
    return [
        bytes(_raw_event.decode(line)[0])
        for block in blocks
        for line in block.lines
        if _is_event(line, header["version"])
    ]
