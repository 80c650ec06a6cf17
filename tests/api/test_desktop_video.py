"""A desktop run's raw video of its virtual display (methodology section 17: "para las
aplicaciones gráficas un video en bruto de la sesión"; issue 32, deliverable 5): fingerprinted on
arrival, its SHA-256 in the ledger, served as recorded at /runs/{id}/evidence/video, and withheld
with its run (which is repeated) where a credential may have been on screen."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from litestar.testing import TestClient

from api.http import create_app
from api.services.ingest import ingest
from api.wiring import Argusic, Settings
from domain.events import RecordingWithheld, RerunRequested, RunRecorded
from ledger.ledger import Ledger
from tests.domain.test_redaction_forms import RUN_KEY
from tests.publishing import publish
from tests.records import EDITIONS, run, write

SOURCE = "testsrc=size=320x240:rate=5:duration=1"


def screen_video(path: Path) -> Path:
    """A second of a 320x240 screen, lossless (FFV1 in Matroska), as the runner records one."""
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", SOURCE, "-c:v", "ffv1", "-y", str(path)],
        check=True,
        timeout=120,
    )
    return path


def desktop_run(run_id: str, **fields: object) -> dict[str, object]:
    record = run(run_id, "test/viewer", "test-agent", "100", edition="1.4")
    record["project"] = {**record["project"], "desktop": True}  # type: ignore[dict-item]
    record["evidence"] = {**record["evidence"], "video": "screen.mkv"}  # type: ignore[dict-item]
    return record | fields


def decodes(data: bytes, folder: Path) -> str:
    (folder / "served.mkv").write_bytes(data)
    done = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(folder / "served.mkv"), "-f", "null", "-"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return f"exit {done.returncode}: {done.stderr}" if done.returncode or done.stderr else ""


def test_a_desktop_run_keeps_its_video_fingerprinted_and_serves_it(
    settings: Settings, ledger: Ledger, tmp_path: Path
) -> None:
    video = screen_video(tmp_path / "screen.mkv")
    argusic = Argusic(settings, ledger)
    ingest(
        ledger,
        [write(tmp_path, "runs.jsonl", [*EDITIONS, desktop_run("d-1")])],
        argusic.store,
        argusic.banners,
    )
    [recorded] = [r.event for r in ledger.events() if isinstance(r.event, RunRecorded)]
    sha256 = hashlib.sha256(video.read_bytes()).hexdigest()
    assert recorded.evidence.video is not None
    assert (recorded.evidence.video.sha256, recorded.evidence.video.bytes) == (
        sha256,
        video.stat().st_size,
    )
    publish(ledger, settings.home)
    with TestClient(app=create_app(argusic)) as client:
        served = client.get("/runs/d-1/evidence/video")
        assert served.status_code == 200
        assert served.headers["content-type"] == "video/x-matroska"
        assert served.headers["x-argusic-served-sha256"] == sha256
        assert hashlib.sha256(served.content).hexdigest() == sha256
        assert decodes(served.content, tmp_path) == ""
        document = client.get("/runs/d-1").json()
        assert document["evidence"]["video"]["raw_sha256"] == sha256
        page = client.get("/runs/d-1", headers={"Accept": "text/html"}).text
        assert 'href="/runs/d-1/evidence/video"' in page


def test_a_video_of_a_run_whose_terminal_showed_its_key_is_withheld_and_the_run_repeated(
    settings: Settings, ledger: Ledger, tmp_path: Path
) -> None:
    screen_video(tmp_path / "screen.mkv")
    argusic = Argusic(settings, ledger)
    shown = desktop_run("d-2", model_key=RUN_KEY)
    (tmp_path / "key.log").write_text(f"$ env\nOPENROUTER_API_KEY={RUN_KEY}\n")
    shown["evidence"] = {**shown["evidence"], "log": "key.log"}  # type: ignore[dict-item]
    records = write(tmp_path, "runs.jsonl", [*EDITIONS, desktop_run("d-1"), shown])
    ingest(ledger, [records], argusic.store, argusic.banners)
    events = [r.event for r in ledger.events()]
    withheld = [e for e in events if isinstance(e, RecordingWithheld)]
    assert [(e.run_id, e.kind, "credential" in e.reason) for e in withheld] == [
        ("d-2", "video", True)
    ]
    assert any(isinstance(e, RerunRequested) and e.run_id == "d-2" for e in events)
    publish(ledger, settings.home)
    with TestClient(app=create_app(argusic)) as client:
        for kind in ("video", "cast", "log"):
            answer = client.get(f"/runs/d-2/evidence/{kind}")
            assert answer.status_code == 451, answer.text
