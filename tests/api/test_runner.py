"""The runner end to end on the real Docker engine, with keys at the stand-in over real HTTP
on 127.0.0.1 (issue 12's acceptance table; budgets shrunk to seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from adapters.artifacts import FileArtifactStore
from adapters.keys_stand_in import KeyStandIn
from adapters.sandbox_images import BASELINE_IMAGE
from api.wiring import Settings
from domain.events import (
    AgentStarted,
    EvidenceTransformed,
    ModelKeyCreated,
    ModelKeyDeleted,
    SandboxCreated,
)
from domain.runs import run_outcome, total
from ledger.ledger import Ledger
from tests.runner_fixtures import Rig, host_processes, images, stand_in

__all__ = ["images", "stand_in"]

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def rig(
    images: dict[str, str], settings: Settings, ledger: Ledger, stand_in: KeyStandIn, tmp_path: Path
) -> Iterator[Rig]:
    made = Rig(settings, ledger, stand_in, tmp_path)
    yield made
    made.close()


def model_call(stand_in: KeyStandIn, secret: str) -> int:
    return httpx.post(
        f"{stand_in.url}/chat/completions",
        headers={"Authorization": f"Bearer {secret}"},
        json={"model": "m", "messages": []},
        timeout=5,
    ).status_code


def key_of(rig: Rig, run_id: str) -> tuple[str, str]:
    created = next(e for e in rig.events(run_id) if isinstance(e, ModelKeyCreated))
    return created.key_hash, rig.stand_in.secret_of(created.key_hash)


def served(rig: Rig, run_id: str, kind: str) -> bytes:
    """The served copy of a run's file: the last transform's output."""
    store = FileArtifactStore(rig.settings.home / "artifacts")
    transforms = [
        r.event
        for r in rig.ledger.stream(f"evidence:{run_id}:{kind}")
        if isinstance(r.event, EvidenceTransformed)
    ]
    return store.path(transforms[-1].output_sha256).read_bytes()


def test_the_baseline_agent_on_the_four_fixture_projects(rig: Rig, images: dict[str, str]) -> None:
    """The baseline agent follows the standard instructions; each fixture gives its outcome
    and score by the rubric, every key is deleted and every sandbox removed."""
    rig.schedule("installs-and-runs", "r-installs")
    rig.schedule("fails-to-install", "r-fails")
    rig.schedule("outlasts-budget", "r-outlasts", budget=3)
    rig.schedule("prints-key", "r-prints-key")
    report = rig.work(concurrency=2)
    assert report.executed == {
        "r-installs": "exited",
        "r-fails": "exited",
        "r-outlasts": "timed_out",
        "r-prints-key": "exited",
    }
    expected = {
        "r-installs": ("pass_full", 100),
        "r-fails": ("fail", 0),
        "r-outlasts": ("timeout", 0),
        "r-prints-key": ("pass_full", 100),
    }
    for run_id, (outcome, score) in expected.items():
        recorded = rig.recorded(run_id)
        assert recorded is not None, run_id
        assert (run_outcome(recorded), total(recorded)) == (outcome, score), run_id
        assert rig.state(run_id).phase == "closed"
        sandbox = next(e for e in rig.events(run_id) if isinstance(e, SandboxCreated))
        assert sandbox.image_digest == images[BASELINE_IMAGE]  # environment drift: recorded
        assert sandbox.environment["TZ"] == "UTC"
        assert sandbox.environment["LANG"] == "C.UTF-8"
        assert "OPENROUTER_API_KEY" not in sandbox.environment
        deleted = [e for e in rig.events(run_id) if isinstance(e, ModelKeyDeleted)]
        assert len(deleted) == 1
    assert rig.recorded("r-fails").report.installed is False  # type: ignore[union-attr]
    assert rig.live_keys() == []
    assert rig.containers() == []


def test_the_served_recording_shows_neither_the_key_nor_the_private_key(rig: Rig) -> None:
    rig.schedule("prints-key", "r-key")
    rig.work()
    _, secret = key_of(rig, "r-key")
    raw = FileArtifactStore(rig.settings.home / "artifacts")
    recorded = rig.recorded("r-key")
    assert recorded is not None
    assert recorded.evidence.cast is not None
    raw_cast = raw.path(recorded.evidence.cast.sha256).read_bytes()
    assert secret.encode() in raw_cast  # the agent did print it: the raw file keeps it
    body = raw_cast.split(b"BEGIN OPENSSH PRIVATE KEY-----")[1].split(b"\\r\\n")[1]
    assert len(body) > 40
    for kind in ("cast", "log"):
        shown = served(rig, "r-key", kind)
        assert secret.encode() not in shown
        assert secret[9:30].encode() not in shown
        assert body not in shown
    assert run_outcome(recorded) == "pass_full"


def test_after_a_timeout_nothing_runs_and_the_key_is_dead(rig: Rig) -> None:
    """moby#9098, Inspect 2779/1357, SWE-bench's `kill -TERM pid`: after the budget no process
    is left (grandchildren and setsid daemons included) and the key answers 401."""
    rig.schedule("outlasts-budget", "r-timeout", budget=3)
    rig.work()
    assert rig.state("r-timeout").ended == "timed_out"
    assert host_processes("argusic-fixture-daemon") == []
    assert host_processes("sleep 100000") == []
    key_hash, secret = key_of(rig, "r-timeout")
    assert key_hash not in {k.hash for k in rig.stand_in.live_keys()}
    assert model_call(rig.stand_in, secret) == 401
    deletes = [r for r in rig.stand_in.requests if r.method == "DELETE" and key_hash in r.path]
    assert [r.status for r in deletes][:1] == [200]
    started = next(e for e in rig.events("r-timeout") if isinstance(e, AgentStarted))
    assert (started.timeout_at - started.started_at).total_seconds() == 3
