"""`argusic render` (methodology section 17, the presentation layer; issue 32): a render of a demo
run's served recording decodes, shows the run's address and the recording's SHA-256, is recorded
as a `RenderMade` event naming that recording, is the same bytes when made again, and a trim
over a failing command is refused naming the rule."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from adapters.artifacts import FileArtifactStore
from adapters.video import Canvas
from api.services.maintenance import verify_evidence
from api.services.render import heading
from api.wiring import Settings
from domain.events import RenderMade
from domain.presentation import NO_HIDDEN_FAILURE, Edits
from ledger.ledger import Ledger
from tests.conftest import argusic, load_bundled_demo

RAW = ["-f", "rawvideo", "-pix_fmt", "rgb24"]
PASSING, FAILING = "demo-001", "demo-012"
"""A demo run that passed, and one whose recording shows its start failing."""

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def demo(settings: Settings, ledger: Ledger) -> Ledger:
    load_bundled_demo(settings, ledger)
    return ledger


def served_cast(env: dict[str, str], run_id: str) -> tuple[str, int]:
    document = json.loads(argusic(env, "run", run_id, "--json").stdout)
    return document["evidence"]["cast"]["served_sha256"], document["position"]


def decodes(path: Path) -> str:
    done = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return f"exit {done.returncode}: {done.stderr}" if done.returncode or done.stderr else ""


def all_frames(path: Path) -> bytes:
    return subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), *RAW, "-"],
        capture_output=True,
        timeout=120,
        check=True,
    ).stdout


def test_a_render_decodes_names_its_recording_and_is_the_same_bytes_again(
    demo: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    asked = ["render", PASSING, "--speed", "4", "--idle-cap", "2", "--captions", "--json"]
    made = argusic(cli_env, *asked, "--out", str(tmp_path / "a.mp4"))
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert decodes(tmp_path / "a.mp4") == ""
    data = (tmp_path / "a.mp4").read_bytes()
    assert report["sha256"] == hashlib.sha256(data).hexdigest()
    source, _ = served_cast(cli_env, PASSING)
    assert report["source_sha256"] == source
    assert report["edits"] == ["speed 4", "idle-cap 2", "captions from the timeline"]
    events = [r.event for r in demo.events() if isinstance(r.event, RenderMade)]
    assert [(e.run_id, e.source_sha256, e.sha256, e.edits) for e in events] == [
        (PASSING, source, report["sha256"], report["edits"])
    ]
    assert set(events[0].tools) == {"ffmpeg", "pyte", "pillow", "font"}
    size = demo.size()
    again = argusic(cli_env, *asked, "--out", str(tmp_path / "b.mp4"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "b.mp4").read_bytes() == data
    assert json.loads(again.stdout)["render"] == report["render"]
    assert demo.size() == size  # the same render is recorded once


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("r.gif", ["--speed", "4"]),
        ("r.mp4", ["--speed", "4", "--idle-cap", "2", "--captions"]),
    ],
    ids=["gif", "mp4-as-the-acceptance-asks"],
)
def test_its_first_and_last_frames_show_the_runs_address_and_the_recordings_sha256(
    demo: Ledger, cli_env: dict[str, str], tmp_path: Path, name: str, options: list[str]
) -> None:
    out = tmp_path / name
    made = argusic(cli_env, "render", PASSING, "--out", str(out), *options, "--json")
    assert made.returncode == 0, made.stderr
    assert decodes(out) == ""
    source, position = served_cast(cli_env, PASSING)
    edits = Edits(speed=4, idle_cap=2 if "--idle-cap" in options else None)
    edits = Edits(speed=4, idle_cap=edits.idle_cap, captions="--captions" in options)
    canvas = Canvas(100, 30, heading(PASSING, position, source, edits))
    size = canvas.width * canvas.height * 3
    frames = all_frames(out)
    assert len(frames) % size == 0
    top = canvas.width * 3 * 16 * len(canvas.heading)  # the heading band

    def band(lines: list[str]) -> bytes:
        return Canvas(100, 30, lines).draw([], None)[:top]

    right = band(heading(PASSING, position, source, edits))
    wrongs = {
        "run": band(heading("demo-009", position, source, edits)),
        "sha256": band(heading(PASSING, position, "0" * 64, edits)),
    }

    def closer(shown: bytes, wrong: bytes) -> bool:
        """Where the right heading and a wrong one differ, the frame is the right one's."""
        differ = [i for i, (a, b) in enumerate(zip(right, wrong, strict=True)) if a != b]
        assert differ
        to_right = sum(abs(shown[i] - right[i]) for i in differ)
        # an MP4 is lossy (chroma halved): half the distance, where a frame without the
        # heading is about as far from either
        return to_right * 2 < sum(abs(shown[i] - wrong[i]) for i in differ)

    for shown in (frames[:top], frames[-size:][:top]):  # the first frame, the last
        assert all(closer(shown, wrong) for wrong in wrongs.values())
    assert f"/runs/{PASSING}".encode() in out.read_bytes()  # the file's metadata
    assert source.encode() in out.read_bytes()


def test_a_trim_over_a_failing_command_is_refused_naming_the_rule(
    demo: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    size = demo.size()
    out = tmp_path / "t.gif"
    refused = argusic(cli_env, "render", FAILING, "--out", str(out), "--trim", "3.58:4", "--json")
    assert refused.returncode == 1
    assert NO_HIDDEN_FAILURE in json.loads(refused.stdout)["error"]
    assert not out.exists()
    assert demo.size() == size


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (["--speed", "0.5"], "acelerar"),
        (["--trim", "0:1", "--trim", "2:4"], "no empalmar"),
    ],
    ids=["slowed-down", "two-windows"],
)
def test_other_refused_edits_name_their_rule(
    demo: Ledger, cli_env: dict[str, str], tmp_path: Path, edit: list[str], rule: str
) -> None:
    refused = argusic(cli_env, "render", PASSING, "--out", str(tmp_path / "x.gif"), *edit)
    assert refused.returncode == 1
    assert rule in refused.stderr


def test_ledger_verify_evidence_rehashes_every_render(
    demo: Ledger, cli_env: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    made = argusic(cli_env, "render", PASSING, "--out", str(tmp_path / "r.gif"), "--json")
    sha256 = json.loads(made.stdout)["sha256"]
    store = FileArtifactStore(settings.home / "artifacts")
    assert verify_evidence(demo, store).ok
    store.path(sha256).chmod(0o600)
    store.path(sha256).write_bytes(b"not the render")
    [problem] = verify_evidence(demo, store).problems
    assert (problem.run_id, problem.kind, problem.copy) == (
        PASSING,
        "render",
        f"{PASSING}/render/1",
    )
