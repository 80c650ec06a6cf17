"""asciicast v2 and v3 terminal recordings (asciinema): a header line, then one
`[time, code, data]` event a line (v3: time is the interval since the previous event; lines
starting with `#` are comments). Parsed and re-emitted so that every time keeps its exact
text and every line nothing changed keeps its exact bytes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from io import BytesIO
from itertools import chain, islice
from operator import attrgetter
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

Event = tuple[float, str, str]


class _Event(msgspec.Struct, array_like=True, forbid_unknown_fields=True, gc=False):
    """An event as `Event` decodes it (an extra element is an error there too), not tracked by
    the garbage collector: a chunk's thousands of events cost no collection."""

    time: float
    code: str
    data: str


class _Line(msgspec.Struct, array_like=True, forbid_unknown_fields=True, gc=False):
    """A line wrapped in brackets: exactly one event, or the wrapper does not decode."""

    event: _Event


_lines = msgspec.json.Decoder(list[_Line])
_raw_event = msgspec.json.Decoder(tuple[msgspec.Raw, str, str])
_header = msgspec.json.Decoder(dict[str, Any])


def parse(lines: Iterable[bytes]) -> tuple[dict[str, Any], bytes, Iterator[Block]]:
    """The header (decoded and as its exact line), and the lines after it in blocks, decoded
    lazily (a bad line raises RecordingError when its block is reached)."""
    source = iter(lines)
    return _parsed(next(source, b""), iter(lambda: list(islice(source, BLOCK)), []))


def parse_chunks(chunks: Iterable[bytes]) -> tuple[dict[str, Any], bytes, Iterator[Block]]:
    """`parse(split_lines(chunks))`, the lines split and decoded a chunk at a time."""
    batches = filter(None, _line_batches(chunks))
    first = next(batches, [b""])
    return _parsed(first[0], chain([first[1:]], batches))


def _parsed(
    first: bytes, batches: Iterator[list[bytes]]
) -> tuple[dict[str, Any], bytes, Iterator[Block]]:
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
        _blocks(batches, header["version"]),
    )


def _blocks(batches: Iterator[list[bytes]], version: int) -> Iterator[Block]:
    number = 0
    for batch in filter(None, batches):
        if not batch[-1].endswith(b"\n"):
            batch[-1] += b"\n"
        lines = _decoded(batch)
        if lines is None:
            yield _slow_block(batch, number, version)
        elif TEXT_CODES.issuperset(map(_code, lines)):  # the common case: all text
            yield Block(batch, list(range(number, number + len(batch))), list(map(_data, lines)))
        else:
            events = [(e.time, e.code, e.data) for e in map(_event_of, lines)]
            yield _block(batch, number, events)
        number += len(batch)


def _decoded(batch: list[bytes]) -> list[_Line] | None:
    """Every line of a batch, each wrapping its one event, in one decoding; None if a line is
    not exactly one event (it is then decoded alone, to say which line and why).

    The lines are decoded as one array of one-element arrays, `[[line],[line],...]`: no JSON
    string holds a raw newline, so each `],[` put between two lines closes one wrapper and
    opens the next; with as many wrappers as lines, each line is exactly one event."""
    try:
        wrapped = _lines.decode(b"[[" + b"],[".join(batch) + b"]]")
    except msgspec.DecodeError:
        return None
    return wrapped if len(wrapped) == len(batch) else None


_event_of, _code, _data = attrgetter("event"), attrgetter("event.code"), attrgetter("event.data")


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
    for batch in _line_batches(chunks):
        yield from batch


def _line_batches(chunks: Iterable[bytes]) -> Iterator[list[bytes]]:
    """The lines of `split_lines`, a chunk's complete lines at a time."""
    rest = b""
    for chunk in chunks:
        lines = BytesIO(rest + chunk).readlines()
        rest = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
        if len(rest) > MAX_LINE:
            raise RecordingError(f"a line longer than {MAX_LINE:,} bytes")
        yield lines
    if rest:
        yield [rest]


def with_data(line: bytes, data: str) -> bytes:
    """An event line with its data replaced, its time kept as the exact text it had."""
    time, code, _ = _raw_event.decode(line)
    return b"[%s, %s, %s]\n" % (bytes(time), _encode(code), _encode(data))


def header_line(header: dict[str, Any]) -> bytes:
    return _encode(header) + b"\n"


def timings(chunks: Iterable[bytes]) -> list[bytes]:
    """The time of every event of a recording, as written: what a transform must leave as it
    was (raises RecordingError if the recording does not parse)."""
    header, _, blocks = parse_chunks(chunks)
    return [
        bytes(_raw_event.decode(line)[0])
        for block in blocks
        for line in block.lines
        if _is_event(line, header["version"])
    ]
