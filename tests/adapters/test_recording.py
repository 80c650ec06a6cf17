"""The host-side recorder: asciicast v2 as output arrives, valid even after a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from itertools import count
from pathlib import Path

from adapters.recording import SessionRecorder
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
from adapters.recording import SessionRecorder
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
    recorded = events(cast)  # every line parses: no half-written event
    assert len(recorded) > 10
    assert all(e[1] == "o" for e in recorded)
