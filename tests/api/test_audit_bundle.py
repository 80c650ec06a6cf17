"""Audit bundles on SQLite and PostgreSQL: a published figure recomputed offline from the
bundle's events alone, and every alteration of an event, a proof step or an approval refused
with exit 3, naming it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.services.audit import write_bundle
from api.wiring import Argusic, Settings
from domain.state.publication import public_state
from ledger.ledger import Ledger
from tests.api.test_publication import CYCLE, ROSTER, agent, project, runs
from tests.api.world import World
from tests.conftest import load_bundled_demo
from tests.records import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def published(world: World) -> World:
    world.ingest([agent(a) for a in ROSTER] + [CYCLE])
    world.ingest(runs("open-app", "public", "o"))
    world.ingest([run_with_score("o-agent-a-3", "no-start"), run_with_score("o-agent-b-3", "92")])
    world.act({"action": "close_cycle", "cycle": "2026-09"})
    world.publish()
    return world


def run_with_score(run_id: str, score: str) -> dict[str, Any]:
    agent_id = "agent-a" if "agent-a" in run_id else "agent-b"
    return run(run_id, "open-app", agent_id, score) | {
        "agent": {"id": agent_id},
        "project": project("open-app"),
    }


def offline_check(folder: Path, *options: str) -> tuple[int, dict[str, Any]]:
    """The documented command, in a process with nothing but the bundle."""
    done = subprocess.run(
        [sys.executable, "-m", "ledger.offline_verify", "bundle", str(folder), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def verify(folder: Path) -> tuple[int, dict[str, Any]]:
    """The bundle checked against the ledger's key as the bundle says it (the tests that doubt
    the key give their own)."""
    key = json.loads((folder / "checkpoint.json").read_text())["public_key"]
    return offline_check(folder, "--key", key)


def bundle(world: World, figure: str, folder: Path) -> Path:
    write_bundle(figure, world.ledger, world.reads().latest(), folder)
    return folder


def test_a_leaderboard_bundle_recomputes_the_apis_median(
    published: World, settings: Settings, tmp_path: Path
) -> None:
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    code, result = verify(folder)
    assert (code, result["ok"]) == (0, True), result
    with TestClient(app=create_app(Argusic(settings, published.ledger))) as client:
        board = client.get("/leaderboard", params={"cycle": "2026-09"}).json()
    assert [(r["agent"], r["score"]) for r in result["value"]["rows"]] == [
        (r["agent"], r["score"]) for r in board["rows"]
    ]
    # agent-b: 100, 100, 100, 92, middle 100; agent-a: 100, 100, 100, 30, spread 70%: unstable
    assert [(r["agent"], r["score"]) for r in board["rows"]] == [
        ("agent-b", 100.0),
        ("agent-a", None),
    ]


def test_a_run_bundle_recomputes_its_outcome_and_score(published: World, tmp_path: Path) -> None:
    code, result = verify(bundle(published, "run:o-agent-a-3", tmp_path / "b"))
    assert code == 0, result
    assert (result["value"]["outcome"], result["value"]["score"]) == ("fail", 30.0)


def lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()]


def rewrite(folder: Path, entries: list[dict[str, Any]]) -> None:
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))


def test_altering_one_event_is_named(published: World, tmp_path: Path) -> None:
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    entries = lines(folder)
    victim = next(e for e in entries if e["type"] == "RunRecorded")
    victim["canonical"] = victim["canonical"].replace('"tier1_real"', '"tier2_mock"', 1)
    rewrite(folder, entries)
    code, result = verify(folder)
    assert code == 3
    assert result["error"] == f"event {victim['position']}: its bytes do not match its hash"


def test_altering_one_proof_step_is_named(published: World, tmp_path: Path) -> None:
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    entries = lines(folder)
    victim = entries[5]
    step = victim["path"][0]
    victim["path"][0] = ("0" if step[0] != "0" else "1") + step[1:]
    rewrite(folder, entries)
    code, result = verify(folder)
    assert code == 3
    assert result["error"].startswith(f"event {victim['position']}: inclusion proof")


def test_altering_one_approval_is_named(published: World, tmp_path: Path) -> None:
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    claimed = json.loads((folder / "figure.json").read_text())
    claimed["approved"] -= 1
    (folder / "figure.json").write_text(json.dumps(claimed))
    code, result = verify(folder)
    assert code == 3
    assert result["error"].startswith("approval: the bundle's last approval is of")


def test_a_forged_approval_signature_is_named(published: World, tmp_path: Path) -> None:
    """Recomputing the hash to hide the change moves the proof: named at that event."""
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    entries = lines(folder)
    acted = [e for e in entries if e["type"] == "OperatorActed"][-1]
    envelope = json.loads(acted["canonical"])
    envelope["event"]["signature"] = "A" * 86 + "=="
    acted["canonical"] = json.dumps(envelope, sort_keys=True, separators=(",", ":"))
    acted["hash"] = hashlib.sha256(acted["canonical"].encode()).hexdigest()
    rewrite(folder, entries)
    code, result = verify(folder)
    assert code == 3
    assert result["error"].startswith(f"event {acted['position']}: inclusion proof")


def test_altering_the_claimed_figure_is_named(published: World, tmp_path: Path) -> None:
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    claimed = json.loads((folder / "figure.json").read_text())
    claimed["value"]["rows"][0]["score"] = 99.0
    (folder / "figure.json").write_text(json.dumps(claimed))
    code, result = verify(folder)
    assert code == 3
    assert result["error"].startswith("figure leaderboard:2026-09: recomputed")


def test_a_truncated_bundle_is_named(published: World, tmp_path: Path) -> None:
    """Cut inside a line, after a whole line, or inside its figure: each named, exit 3."""
    folder = bundle(published, "leaderboard:2026-09", tmp_path / "b")
    events = (folder / "events.jsonl").read_bytes()
    whole = len(events.splitlines())
    (folder / "events.jsonl").write_bytes(events[:-100])
    assert verify(folder) == (
        3,
        {"ok": False, "error": f"events.jsonl: line {whole} is cut short: the file is truncated"},
    )
    (folder / "events.jsonl").write_bytes(events[: events.rstrip(b"\n").rfind(b"\n") + 1])
    assert verify(folder) == (
        3,
        {
            "ok": False,
            "error": f"events.jsonl holds {whole - 1} events, the bundle {whole}: it is truncated",
        },
    )
    (folder / "events.jsonl").write_bytes(events)
    figure = (folder / "figure.json").read_bytes()
    (folder / "figure.json").write_bytes(figure[: len(figure) // 2])
    code, result = verify(folder)
    assert code == 3
    assert result["error"].startswith("figure.json is not whole JSON")


def test_the_demos_siiq_and_run_bundles_verify(
    ledger: Ledger, settings: Settings, tmp_path: Path
) -> None:
    """SI-IQ's figures come from its own streams (inputs, calibrations): a bundle of each kind of
    the demo's published figures verifies and says what the public API says."""
    load_bundled_demo(settings, ledger)
    public = Argusic(settings, ledger)
    model = public.public_siiq.index().models[0]
    state = public.methodology.state()
    folder = tmp_path / "siiq"
    write_bundle(f"siiq:{model.slug}", ledger, state, folder)
    code, result = verify(folder)
    assert code == 0, result
    assert result["value"] == msgspec.to_builtins(model)
    run_id = next(iter(public_state(state).runs))
    write_bundle(f"run:{run_id}", ledger, state, tmp_path / "run")
    code, result = verify(tmp_path / "run")
    assert (code, result["value"]["run_id"]) == (0, run_id), result
