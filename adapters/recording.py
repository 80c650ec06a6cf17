"""The session's recording, made on the host from the bytes the agent's pseudo-terminal sends
(methodology section 7, point 5): asciicast v2 written as output arrives, one event a write
(UTF-8 decoded incrementally, times to 6 decimals), and the full raw log beside it. Each event
is one unbuffered write, so a SIGKILL of the orchestrator leaves a valid recording up to its
last whole event (`cut_torn_write` drops what a write cut half way left after it); nothing is
installed in the sandbox to record it.
"""

from __future__ import annotations

import codecs
import os
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

WIDTH, HEIGHT = 120, 40
_encode = msgspec.json.Encoder().encode


class SessionRecorder:
    """Writes `cast` and `log` as output arrives; `write` from one reader thread at a time."""

    def __init__(
        self,
        cast: Path,
        log: Path,
        *,
        title: str,
        timestamp: int,
        clock: Callable[[], float] = time.monotonic,
        width: int = WIDTH,
        height: int = HEIGHT,
    ) -> None:
        cast.parent.mkdir(parents=True, exist_ok=True)
        self.cast_path, self.log_path = cast, log
        self._cast = os.open(cast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self._log = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._clock = clock
        self._start = clock()
        header = {
            "version": 2,
            "width": width,
            "height": height,
            "timestamp": timestamp,
            "title": title,
            "env": {"TERM": "xterm-256color", "SHELL": "/bin/sh"},
        }
        os.write(self._cast, _encode(header) + b"\n")
        self.closed = False

    def write(self, chunk: bytes) -> None:
        """Record output as it arrives: the raw bytes to the log, the decoded text as one
        event (a character split across chunks waits for its other bytes)."""
        if not chunk:
            return
        os.write(self._log, chunk)
        self._event(self._decoder.decode(chunk))

    def _event(self, text: str) -> None:
        if text:
            elapsed = self._clock() - self._start
            os.write(self._cast, b'[%.6f, "o", %s]\n' % (elapsed, _encode(text)))

    def close(self) -> None:
        if self.closed:
            return
        self._event(self._decoder.decode(b"", final=True))
        os.close(self._cast)
        os.close(self._log)
        self.closed = True


_TAIL_BLOCK = 64 * 1024


def cut_torn_write(cast: Path) -> int:
    """Cut a recording back to its last whole line; the bytes cut. A fatal signal may stop a
    write part way (Linux lets SIGKILL interrupt a write between pages), leaving the start of
    an event and never its end: that part is dropped (the log beside it has those bytes)."""
    with open(cast, "r+b") as file:
        size = end = file.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - _TAIL_BLOCK)
            file.seek(start)
            newline = file.read(end - start).rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
                break
            end = start
        file.truncate(end)
    return size - end
