"""The host-side recorder: asciicast v2 as output arrives, valid to its last whole event
even after a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from itertools import count
from pathlib import Path

import pytest

from adapters.recording import SessionRecorder, cut_torn_write
from domain.evidence.asciicast import parse, split_lines, timings


def events(cast: Path) -> list[list[object]]:
    header, _, blocks = parse(split_lines([cast.read_bytes()]))
    assert header["version"] == 2
    return [json.loads(line) for block in blocks for line in block.lines]


def test_output_is_recorded_as_it_arrives(tmp_path: Path) -> None:
    ticks = count()
    recorder = SessionRecorder(
        tmp_path / "s.cast",
        tmp_path / "s.log",
        title="r1",
        timestamp=1,
        clock=lambda: next(ticks) / 3,
    )
    snowman = "☃".encode()
    recorder.write(b"hello " + snowman[:1])  # a character split across two reads
    assert len(events(tmp_path / "s.cast")) == 1  # written at once, not at close
    recorder.write(snowman[1:] + b"\r\n\x1b[31mred\x1b[0m")
    recorder.close()
    recorded = events(tmp_path / "s.cast")
    assert [e[2] for e in recorded] == ["hello ", "☃\r\n\x1b[31mred\x1b[0m"]
    assert timings([(tmp_path / "s.cast").read_bytes()]) == [b"0.333333", b"0.666667"]
    assert (tmp_path / "s.log").read_bytes() == b"hello " + snowman + b"\r\n\x1b[31mred\x1b[0m"
    header = json.loads((tmp_path / "s.cast").read_bytes().splitlines()[0])
    assert (header["width"], header["height"], header["title"]) == (120, 40, "r1")


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path / "s.cast", tmp_path / "s.log", title="r", timestamp=1)
    recorder.write(b"a\xffb")
    recorder.write(b"\xe2\x98")  # a truncated character at the end
    recorder.close()
    assert [e[2] for e in events(tmp_path / "s.cast")] == ["a\ufffdb", "\ufffd"]


WRITER = """
import sys, time
from pathlib import Path

import pytest
from adapters.recording import SessionRecorder, cut_torn_write
recorder = SessionRecorder(Path(sys.argv[1]), Path(sys.argv[2]), title="r", timestamp=1)
n = 0
while True:
    n += 1
    recorder.write(("line %d ☃\\r\\n" % n).encode() * 50)
"""


def test_the_recording_is_valid_after_a_sigkill(tmp_path: Path) -> None:
    cast, log = tmp_path / "s.cast", tmp_path / "s.log"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(cast), str(log)],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    deadline = time.monotonic() + 20
    while (not cast.exists() or cast.stat().st_size < 200_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    cut_torn_write(cast)  # as a restart does: a write the kill cut half way is dropped
    recorded = events(cast)  # every line parses: no half-written event
    assert len(recorded) > 10
    assert all(e[1] == "o" for e in recorded)


@pytest.mark.parametrize("torn", [b"[0.5", b'[1.000000, "o", "half an ev', b"x" * 70_000])
def test_a_torn_last_write_is_cut_back_to_the_last_whole_event(tmp_path: Path, torn: bytes) -> None:
    """What a kill leaves of a write stopped part way: the start of an event, never its end,
    however long (beyond the 64 KiB read back at a time too)."""
    cast = tmp_path / "s.cast"
    recorder = SessionRecorder(cast, tmp_path / "s.log", title="r", timestamp=1)
    recorder.write(b"one\r\n")
    recorder.write(b"two\r\n")
    recorder.close()
    whole = cast.read_bytes()
    with open(cast, "ab") as file:
        file.write(torn)
    assert cut_torn_write(cast) == len(torn)
    assert cast.read_bytes() == whole
    assert [e[2] for e in events(cast)] == ["one\r\n", "two\r\n"]
    assert cut_torn_write(cast) == 0, "a recording ending in a whole event is left as it is"
    assert cast.read_bytes() == whole
