"""Methodology section 16 ("Verificar significa decodificar, no sondear"), from v1.4: each probe
form the seed names is no decoding; a decoding counts only when the run's own recording shows
the command and the output the report quotes; before v1.4 nothing changes (issue 28, item 6)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime

import msgspec
import pytest

from domain.events import Evidence, Fingerprint, Project, Report, RunRecorded, Verification
from domain.events.methodology import Agent
from domain.evidence.asciicast import MAX_LINE
from domain.evidence.terminal_text import shows_in_order, terminal_output
from domain.runs import run_outcome, run_score
from domain.verification import (
    decoding_named,
    verification_found,
    verification_note,
)

PROBES = {
    # the seed's own probe forms (section 16), each as an agent reports it
    "ffprobe -show_streams": ("ffprobe -show_streams out.mp4 -> 1 stream", "ffprobe"),
    "file": ("file out.png -> PNG image data", "file"),
    "a byte count (wc -c)": ("wc -c out.mp4 -> 1048576 out.mp4", "a byte count"),
    "a byte count (the quote)": ("cat out.txt -> 5 bytes", "a byte count"),
    "the file's existence (ls)": ("ls -l out.mp4 -> out.mp4", "the file's existence (ls/stat)"),
    "the file's existence (stat)": (
        "stat out.mp4 -> Size: 1048576",
        "the file's existence (ls/stat)",
    ),
    "a header read (xxd)": ("xxd out.png | head -1 -> 89504e47", "a header read"),
    "a header read (head -c)": ("head -c 8 out.png -> PNG", "a header read"),
    "a header read (identify -ping)": (
        "identify -ping out.png -> out.png PNG 64x64",
        "a header read (identify)",
    ),
    "a header read (Python)": (
        "python -c 'print(open(\"out.png\",\"rb\").read()[:4])' -> b'\\x89PNG'",
        "a header read (the first bytes)",
    ),
    "ffmpeg reading the container only": (
        "ffmpeg -i out.mp4 -> Stream #0:0: Video: h264",
        "ffmpeg without decoding to null",
    ),
    "no command at all": ("a video of two cats", "no decoding"),
}
DECODINGS = {
    "ffmpeg to null": "ffmpeg -v error -i out.mp4 -f null - -> no errors",
    "PIL load": "python -c \"from PIL import Image; Image.open('out.png').load()\" -> no errors",
    "dwebp": "dwebp out.webp -o /dev/null -> Decoded out.webp",
    "djpeg": "djpeg out.jpg > /dev/null -> no output",
    "printing the text": "cat out.txt -> hello",
    "pdftotext": "pdftotext out.pdf - -> Hello",
}
FFMPEG = "ffmpeg -v error -i out.mp4 -f null -"


def report(verified_how: str | None, depth: str = "tier1_real") -> Report:
    return Report(
        installed=True,
        started=True,
        errors_found=0,
        errors_fixed=0,
        test_depth=depth,  # type: ignore[arg-type]
        verified_how=verified_how,
    )


def run(edition: str, said: Report, verification: Verification | None = None) -> RunRecorded:
    kept = Fingerprint(sha256="0" * 64, bytes=10)
    return RunRecorded(
        run_id="r1",
        cycle="2026-09",
        edition=edition,
        project=Project(id="p", source_type="repository", pool="public"),
        agent=Agent(id="a", model="m", model_version="1", harness="h", harness_version="1"),
        attempt="standard",
        started_at=datetime(2026, 9, 10, 10, tzinfo=UTC),
        finished_at=datetime(2026, 9, 10, 10, 40, tzinfo=UTC),
        status="finished",
        invalid_reason=None,
        report=said,
        evidence=Evidence(log=kept, cast=kept),
        verification=verification,
    )


def cast(*outputs: str) -> list[bytes]:
    """A recording's bytes, in chunks cut anywhere."""
    lines = [json.dumps({"version": 2, "width": 80, "height": 24})]
    lines += [json.dumps([0.1 * i, "o", text]) for i, text in enumerate(outputs)]
    data = ("\n".join(lines) + "\n").encode()
    return [data[i : i + 7] for i in range(0, len(data), 7)]


def recorded(edition: str, verified_how: str, chunks: Iterable[bytes] | None) -> RunRecorded:
    said = report(verified_how)
    found = verification_found(said, edition, None if chunks is None else lambda: iter(chunks))
    return run(edition, said, found)


@pytest.mark.parametrize("form", PROBES)
def test_decoding_named_tells_each_probe_the_seed_names(form: str) -> None:
    verified_how, probe = PROBES[form]
    assert decoding_named(verified_how) == (False, probe), form


@pytest.mark.parametrize("form", DECODINGS)
def test_decoding_named_tells_a_real_decoding(form: str) -> None:
    assert decoding_named(DECODINGS[form]).decoding, form


@pytest.mark.parametrize("form", PROBES)
def test_a_probe_report_counts_as_tier3_none_from_v1_4(form: str) -> None:
    """The recording shows the probe and its output: still no decoding, so 80 and a fail."""
    verified_how, probe = PROBES[form]
    command, _, output = verified_how.partition(" -> ")
    shown = recorded("1.4", verified_how, cast(f"$ {command}\r\n", f"{output}\r\n"))
    lines = run_score(shown)
    assert lines is not None, form
    assert (lines.depth, float(lines.total)) == (0, 80.0), form
    assert run_outcome(shown) == "fail", form
    note = verification_note(shown) or ""
    assert f"({probe})" in note or "names no decoding" in note, (form, note)
    assert "tier3_none (section 16, from v1.4)" in note, (form, note)


@pytest.mark.parametrize("form", PROBES)
def test_a_probe_report_is_unchanged_on_v1_3(form: str) -> None:
    verified_how, _ = PROBES[form]
    before = recorded("1.3", verified_how, cast("nothing\r\n"))
    lines = run_score(before)
    assert before.verification is None, form
    assert lines is not None, form
    assert (lines.depth, float(lines.total)) == (20, 100.0), form
    assert run_outcome(before) == "pass_full", form
    assert verification_note(before) is None, form


def test_a_decoding_in_the_recording_keeps_tier1_real() -> None:
    shown = recorded(
        "1.4",
        f"{FFMPEG} -> no errors",
        cast("\x1b[32m$\x1b[0m ffmpeg -v error -i out.mp4 \x1b", "[1m-f null -\x1b[0m\r\n", "$ "),
    )
    assert shown.verification == Verification(decoding=True, in_recording=True)
    lines = run_score(shown)
    assert lines is not None
    assert float(lines.total) == 100.0
    assert run_outcome(shown) == "pass_full"
    assert verification_note(shown) is None


def test_the_output_quoted_must_follow_the_command_in_the_recording() -> None:
    chunks = cast("$ cat out.txt\r\n", "hello\r\n")
    assert recorded("1.4", "cat out.txt -> hello", chunks).verification == Verification(
        decoding=True, in_recording=True
    )
    quoted_before = cast("hello\r\n", "$ cat out.txt\r\n", "bye\r\n")
    shown = recorded("1.4", "cat out.txt -> hello", quoted_before)
    assert shown.verification is not None
    assert not shown.verification.in_recording
    assert "'hello'" in (verification_note(shown) or "")


def test_a_decoding_absent_from_the_recording_counts_as_tier3_none() -> None:
    shown = recorded("1.4", f"{FFMPEG} -> no errors", cast("$ ffprobe -show_streams out.mp4\r\n"))
    lines = run_score(shown)
    assert shown.verification is not None
    assert shown.verification.decoding
    assert not shown.verification.in_recording
    assert lines is not None
    assert (lines.depth, float(lines.total)) == (0, 80.0)
    assert run_outcome(shown) == "fail"
    note = verification_note(shown) or ""
    assert "not in the run's recording" in note, note
    assert FFMPEG in note, note


def test_a_decoding_absent_from_the_recording_is_unchanged_on_v1_3() -> None:
    before = recorded("1.3", f"{FFMPEG} -> no errors", cast("nothing\r\n"))
    assert run_outcome(before) == "pass_full"
    assert verification_note(before) is None


def test_no_recording_read_for_what_section_16_does_not_judge() -> None:
    def unread() -> Iterable[bytes]:
        raise AssertionError("read")

    assert verification_found(report("file x -> x"), "1.4", unread) is not None  # a probe
    assert verification_found(report(FFMPEG, "tier2_mock"), "1.4", unread) is None
    assert verification_found(report(FFMPEG), "1.3", unread) is None


def test_a_run_recorded_before_the_check_is_judged_by_the_command_rule_alone() -> None:
    probe, decoding = run("1.4", report(PROBES["file"][0])), run("1.4", report(FFMPEG))
    assert run_outcome(probe) == "fail"
    assert run_outcome(decoding) == "pass_full"
    assert "(file)" in (verification_note(probe) or "")
    assert verification_note(decoding) is None


def test_not_verified_still_counts_as_tier3_none_with_its_reason() -> None:
    shown = recorded("1.4", "not verified", cast("x"))
    assert run_outcome(shown) == "fail"
    assert "reports no decoding" in (verification_note(shown) or "")


def test_the_finding_is_kept_in_the_recorded_bytes() -> None:
    shown = recorded("1.4", PROBES["ffprobe -show_streams"][0], None)
    again = msgspec.json.decode(msgspec.json.encode(shown), type=RunRecorded)
    assert again == shown
    assert again.verification is not None


def test_terminal_output_reads_output_events_only() -> None:
    data = [*cast("$ cat out.txt\r\n"), b'[1.0, "i", "typed"]\n', b"not an event\n"]
    assert list(terminal_output(data)) == ["$ cat out.txt\r\n"]


def test_terminal_output_stops_at_a_line_longer_than_any_event() -> None:
    data = [*cast("$ cat out.txt\r\n"), b"x" * (MAX_LINE + 1), b'\n[2.0, "o", "after"]\n']
    assert list(terminal_output(data)) == ["$ cat out.txt\r\n"]


def test_shows_in_order_holds_only_a_tail() -> None:
    texts = ["x" * 10_000 for _ in range(100)] + ["$ cat  out.txt\r\n", "x" * 5000, "Hello"]
    assert shows_in_order(iter(texts), "cat out.txt", ["hello"]) is None
    missing = shows_in_order(iter(texts), "cat out.md", [])
    assert missing is not None
    assert "'cat out.md'" in missing
