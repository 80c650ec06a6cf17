"""asciicast v2 and v3 terminal recordings (asciinema): a header line, then one
`[time, code, data]` event a line (v3: time is the interval since the previous event; lines
starting with `#` are comments). Parsed and re-emitted so that every time keeps its exact
text and every line nothing changed keeps its exact bytes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

VERSIONS = (2, 3)
TEXT_CODES = frozenset({"o", "i"})
"""Output and input events carry terminal text; markers, resizes and exits do not."""


class RecordingError(ValueError):
    """The bytes are not an asciicast v2 or v3 recording."""


@dataclass
class CastLine:
    """One line after the header: an event (time kept as its raw JSON text) or a comment."""

    time: bytes | None
    code: str
    data: str
    line: bytes | None  # the exact bytes while unchanged; None once `data` was changed

    @property
    def is_text(self) -> bool:
        return self.time is not None and self.code in TEXT_CODES

    def replace_data(self, data: str) -> None:
        if data != self.data:
            self.data, self.line = data, None

    def encoded(self) -> bytes:
        """The line, newline-terminated: its original bytes, or the event re-encoded."""
        if self.line is None:
            assert self.time is not None
            self.line = b"[%s, %s, %s]\n" % (self.time, _encode(self.code), _encode(self.data))
        return self.line


_encode = msgspec.json.Encoder().encode
_event = msgspec.json.Decoder(tuple[msgspec.Raw, str, str])
_header = msgspec.json.Decoder(dict[str, Any])


def parse(lines: Iterable[bytes]) -> tuple[dict[str, Any], bytes, Iterator[CastLine]]:
    """The header (decoded and as its exact line), and the lines after it, decoded lazily
    (a bad line raises RecordingError when it is reached)."""
    source = iter(lines)
    first = next(source, b"")
    try:
        header = _header.decode(first)
    except msgspec.DecodeError as e:
        raise RecordingError(f"the first line is not a JSON header: {e}") from e
    if header.get("version") not in VERSIONS:
        raise RecordingError(f"asciicast version {header.get('version')!r} is not 2 or 3")
    return (
        header,
        first if first.endswith(b"\n") else first + b"\n",
        _lines(source, header["version"]),
    )


def _lines(source: Iterator[bytes], version: int) -> Iterator[CastLine]:
    for number, raw in enumerate(source, 2):
        line = raw if raw.endswith(b"\n") else raw + b"\n"
        if not raw.strip():
            continue
        if version == 3 and raw.startswith(b"#"):
            yield CastLine(None, "#", "", line)
            continue
        try:
            time, code, data = _event.decode(raw)
            float(bytes(time))
        except (msgspec.DecodeError, ValueError) as e:
            raise RecordingError(f"line {number} is not a [time, code, data] event: {e}") from e
        yield CastLine(bytes(time), code, data, line)


def header_line(header: dict[str, Any]) -> bytes:
    return _encode(header) + b"\n"


def timings(lines: Iterable[CastLine]) -> list[bytes]:
    """The time of every event, as written: what a transform must leave as it was."""
    return [line.time for line in lines if line.time is not None]
