"""The runner end to end on the real Docker engine, with keys at the stand-in over real HTTP
on 127.0.0.1 (issue 12's acceptance table; budgets shrunk to seconds)."""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from adapters.artifacts import FileArtifactStore
from adapters.keys_stand_in import KeyStandIn
from adapters.sandbox_images import BASELINE_IMAGE, DESKTOP_IMAGE
from api.services.reader import ProjectionReader
from api.services.sweep import sweep
from api.wiring import Settings
from domain.events import (
    AgentStarted,
    EvidenceTransformed,
    ModelKeyCreated,
    ModelKeyDeleted,
    SandboxCreated,
    streams,
)
from domain.runs import run_outcome, run_score
from domain.verification import verification_note
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection
from tests.api.world import World
from tests.runner_fixtures import Rig, host_processes, until

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


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
        "r-prints-key": ("fail", 80),  # `grep -c` counts lines, decodes nothing (section 16)
    }
    for run_id, (outcome, score) in expected.items():
        recorded = rig.recorded(run_id)
        assert recorded is not None, run_id
        lines = run_score(recorded)
        assert (run_outcome(recorded), lines and lines.total) == (outcome, score), run_id
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


def test_a_run_names_its_environment_and_the_instructions_it_had(
    rig: Rig, images: dict[str, str]
) -> None:
    """Sections 7 and 18 (issue 27, item 6): the run's document and page carry the image digest,
    the engine's version, the network setting and the instructions' SHA-256; the instructions
    are published once per version, before the first run that had them, and served."""
    from api.services.queries import MethodologyQueries
    from domain.events import InstructionsPublished

    rig.schedule("installs-and-runs", "r-env-1")
    rig.schedule("fails-to-install", "r-env-2")
    rig.work(concurrency=2)
    text = rig.runner.instructions
    sha = hashlib.sha256(text).hexdigest()
    published = rig.ledger.stream(streams.instructions(sha))
    assert [type(r.event) for r in published] == [InstructionsPublished]
    first_sandbox = min(
        r.position
        for run_id in ("r-env-1", "r-env-2")
        for r in rig.ledger.stream(streams.attempt(run_id))
        if isinstance(r.event, SandboxCreated)
    )
    assert published[0].position < first_sandbox
    engine = rig.runner.sandboxes.engine_version()
    for run_id in ("r-env-1", "r-env-2"):
        doc = MethodologyQueries(rig.ledger).run(run_id)
        assert (doc.image_digest, doc.engine_version, doc.network, doc.instructions_sha256) == (
            images[BASELINE_IMAGE],
            engine,
            "none",
            sha,
        )
    assert b"".join(rig.runner.store.read(sha)) == text


def test_a_desktop_application_starts_on_the_sandbox_s_virtual_display(
    rig: Rig, images: dict[str, str]
) -> None:
    """Section 7 point 6 (v1.1): a desktop project runs in the desktop image with a virtual
    display the agent's processes see; its window opening is what "started" means."""
    rig.schedule("desktop-app", "r-desktop", desktop_image=DESKTOP_IMAGE)
    assert rig.work().executed == {"r-desktop": "exited"}
    recorded = rig.recorded("r-desktop")
    assert recorded is not None
    assert recorded.report.started is True  # type: ignore[union-attr]
    # its fixture verifies with `./bin/viewer --version`, which decodes nothing (section 16)
    assert run_outcome(recorded) == "fail"
    assert "names no decoding" in (verification_note(recorded) or "")
    sandbox = next(e for e in rig.events("r-desktop") if isinstance(e, SandboxCreated))
    assert (sandbox.image, sandbox.image_digest) == (DESKTOP_IMAGE, images[DESKTOP_IMAGE])
    assert sandbox.environment["DISPLAY"] == ":99"
    assert b"viewer: window open on :99" in served(rig, "r-desktop", "log")
    assert rig.containers() == []
    # section 17: the raw video of the display, recorded from the host, fingerprinted on arrival
    video = recorded.evidence.video
    assert video is not None
    kept = FileArtifactStore(rig.settings.home / "artifacts").path(video.sha256)
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == video.sha256
    assert served(rig, "r-desktop", "video") == kept.read_bytes()
    decoded = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(kept), "-f", "null", "-"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (decoded.returncode, decoded.stderr) == (0, "")


def test_a_desktop_run_in_an_image_with_no_display_is_aborted_never_failed(rig: Rig) -> None:
    """Our own tooling failed (no virtual display in the image): the run is `aborted`, not
    counted against the agent, and its key is deleted."""
    rig.schedule("desktop-app", "r-no-display")
    assert rig.work().executed == {"r-no-display": "aborted"}
    state = rig.state("r-no-display")
    assert "virtual display :99 did not start" in getattr(state.ending, "reason", "")
    assert not any(isinstance(e, AgentStarted) for e in rig.events("r-no-display"))
    assert rig.live_keys() == []
    assert rig.containers() == []


def test_the_served_recording_shows_neither_the_key_nor_the_private_key(rig: Rig) -> None:
    rig.schedule("prints-key", "r-key")
    rig.work()
    _, secret = key_of(rig, "r-key")
    store = FileArtifactStore(rig.settings.home / "artifacts")
    recorded = rig.recorded("r-key")
    assert recorded is not None
    assert recorded.evidence.cast is not None
    # the agent did print its key, but the kept file was redacted before it was written
    # (section 17): what arrived is not stored, and the kept layer keeps the generated key;
    # the run's fingerprint is the kept file's (issue 26: no hash of what held the key)
    kept = [p.read_bytes() for p in rig.settings.home.rglob("*") if p.is_file()]
    assert not any(secret.encode() in data for data in kept)  # nowhere at rest, raw files included
    state = ProjectionReader(rig.ledger, MethodologyProjection()).latest()
    assert recorded.evidence.cast.sha256 == state.evidence["r-key"]["cast"].stored_sha256
    kept_cast = store.path(state.evidence["r-key"]["cast"].stored_sha256 or "").read_bytes()
    body = kept_cast.split(b"BEGIN OPENSSH PRIVATE KEY-----")[1].split(b"\\r\\n")[1]
    assert len(body) > 40
    for kind in ("cast", "log"):
        shown = served(rig, "r-key", kind)
        assert secret.encode() not in shown
        assert secret[9:30].encode() not in shown
        assert body not in shown
    assert run_outcome(recorded) == "fail"  # `grep -c` decodes nothing (section 16)


def test_after_a_timeout_nothing_runs_and_the_key_is_dead(rig: Rig) -> None:
    """moby#9098, Inspect 2779/1357, SWE-bench's `kill -TERM pid`: after the budget no process
    is left (grandchildren and setsid daemons included) and the key answers 401."""
    rig.schedule("outlasts-budget", "r-timeout", budget=3)
    rig.work()
    state = rig.state("r-timeout")
    assert state.ended == "timed_out"
    assert state.sandbox_removed, rig.events("r-timeout")  # by its closer, not left to a sweep
    assert rig.containers() == []
    no_process_left("argusic-fixture-daemon")
    no_process_left("sleep 100000")
    key_hash, secret = key_of(rig, "r-timeout")
    assert key_hash not in {k.hash for k in rig.stand_in.live_keys()}
    assert model_call(rig.stand_in, secret) == 401
    deletes = [r for r in rig.stand_in.requests if r.method == "DELETE" and key_hash in r.path]
    assert [r.status for r in deletes][:1] == [200]
    started = next(e for e in rig.events("r-timeout") if isinstance(e, AgentStarted))
    assert (started.timeout_at - started.started_at).total_seconds() == 3


def test_our_own_timeouts_abort_never_time_out(
    images: dict[str, str], settings: Settings, ledger: Ledger, stand_in: KeyStandIn, tmp_path: Path
) -> None:
    """coder/xum #1539, SWE-bench #157, Inspect #518: a stalled Docker socket fails closed
    within its bound; our own timeout is `aborted`, never `timeout`; the key is deleted."""
    from adapters.docker_sandbox import DockerSandboxes
    from tests.adapters.test_docker_sandbox import StallingProxy

    proxy = StallingProxy(tmp_path / "docker.sock", stall_on=b"/start")
    rig = Rig(settings, ledger, stand_in, tmp_path)
    rig.runner.sandboxes = DockerSandboxes(base_url=f"unix://{proxy.path}", timeout=2)
    try:
        rig.schedule("installs-and-runs", "r-stalled")
        rig.work()
        state = rig.state("r-stalled")
        assert state.ended == "aborted"
        assert "in time" in getattr(state.ending, "reason", "")
        assert not any(type(e).__name__ == "AgentTimedOut" for e in rig.events("r-stalled"))
        assert rig.live_keys() == []
        rerun = rig.state("r-stalled~r2")  # aborted: never counted, run again
        assert rerun.scheduled.replaces == "r-stalled"
    finally:
        proxy.close()
        rig.close()


def test_no_key_no_start_and_never_a_shared_key(make_rig: Callable[..., Rig]) -> None:
    """Section 7, "La clave del modelo": key creation failing (here: the key API stalls past
    its bound) starts nothing; the run is tried again later; the key made late is swept."""
    rig = make_rig(keys_timeout=2)
    rig.runner.shared_keys = {"OPENROUTER_API_KEY": "sk-or-v1-" + "0" * 64}  # never used
    rig.runner.key_retry_seconds = 1
    rig.stand_in.switches.create_delay = 3  # over the client's 2 s
    rig.schedule("installs-and-runs", "r-nokey")
    first = rig.work()
    assert first.executed == {"r-nokey": "scheduled"}
    state = rig.state("r-nokey")
    assert state.phase == "scheduled"
    assert state.not_before is not None
    kinds = [type(e).__name__ for e in rig.events("r-nokey")]
    failed = ["RunScheduled", "RunClaimed", "ModelKeyRequested", "ModelKeyCreationFailed"]
    assert kinds == failed
    assert rig.containers() == []
    rig.stand_in.switches.create_delay = 0
    assert until(lambda: len(rig.live_keys()) == 1)  # the late answer's key is made
    assert len(sweep(rig.runner).keys_deleted) == 1
    assert rig.live_keys() == []
    retry_at = state.not_before
    assert until(lambda: rig.runner.clock() >= retry_at)
    second = rig.work()  # the retry delay is over: it runs, under its second claim
    assert second.executed == {"r-nokey": "exited"}
    assert rig.state("r-nokey").claim == 2
    _, secret = key_of(rig, "r-nokey")
    assert secret != rig.runner.shared_keys["OPENROUTER_API_KEY"]


def no_process_left(marker: str) -> None:
    """No process of a removed sandbox is left on the host. The last of them, killed with it,
    can leave the host's process table a moment after the engine has answered that the container
    is gone (seen in CI with both cores busy, after a timeout and after a restart's sweep): the
    rule is that none outlives the removal for long, nor is left running."""
    assert until(lambda: host_processes(marker) == [], 10)


def started(rig: Rig, run_id: str) -> bool:
    try:
        return rig.state(run_id).phase == "running"
    except LookupError:
        return False


def test_an_orchestrator_killed_mid_run_leaves_nothing_after_restart_and_sweep(
    rig: Rig, cli_env: dict[str, str]
) -> None:
    """agent-baselines #25, trajectoryRL #203: after a SIGKILL, restart + sweep leave no
    container, volume or key; the run is aborted and rescheduled; the cast is stored valid to
    its last whole event (a write the kill stopped part way is dropped)."""
    import signal
    import subprocess

    from api.services.run_end import recover
    from domain.events import RecordingWithheld, RerunRequested, RunAborted
    from tests.conftest import ARGUSIC

    rig.schedule("outlasts-budget", "r-crash", budget=120)
    volumes = len(rig.runner.sandboxes.api.volumes()["Volumes"] or [])
    worker = subprocess.Popen(
        [ARGUSIC, "worker", "--once", "--worker-id", "w-crash"],
        env={**cli_env, **rig.env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert until(lambda: started(rig, "r-crash"), 60)
        cast, _ = rig.runner.evidence_paths("r-crash")
        assert until(lambda: b"compiling unit 2" in cast.read_bytes(), 30)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    assert rig.containers()  # left running by the dead orchestrator
    assert rig.live_keys()
    with open(cast, "ab") as torn:  # what a write the kill stopped part way may leave
        torn.write(b'[9.000000, "o", "compiling un')
    assert recover(rig.runner, "w-crash") == ["r-crash"]  # what `argusic worker` does first
    aborted = next(e for e in rig.events("r-crash") if isinstance(e, RunAborted))
    assert "the recording's last write, cut half way, dropped" in aborted.reason
    cast_events = [r.event for r in rig.ledger.stream(streams.evidence("r-crash", "cast"))]
    assert cast_events, "the recording was stored"
    assert not [e for e in cast_events if isinstance(e, RecordingWithheld)], "and it parsed"
    sweep(rig.runner)
    assert rig.containers() == []
    assert rig.live_keys() == []
    assert len(rig.runner.sandboxes.api.volumes()["Volumes"] or []) <= volumes
    no_process_left("argusic-fixture-daemon")
    state = rig.state("r-crash")
    assert state.phase == "closed"
    assert state.ended == "aborted"
    assert rig.state("r-crash~r2").scheduled.replaces == "r-crash"
    recorded = rig.recorded("r-crash")
    assert recorded is not None
    assert recorded.status == "invalid"
    assert run_outcome(recorded) is None  # never counted
    [request] = [r.event for r in rig.ledger.stream(streams.rerun("r-crash"))]
    assert isinstance(request, RerunRequested)
    assert (request.why, request.reason) == ("aborted", aborted.reason)
    methodology = ProjectionReader(rig.ledger, MethodologyProjection()).latest()
    assert methodology.rerun_reason("r-crash") == aborted.reason
    assert methodology.judge(methodology.runs["r-crash"]).invalid_reason == recorded.invalid_reason


def test_names_are_unique_per_attempt(rig: Rig) -> None:
    """SWE-bench's 409 ghost containers: a container left by an earlier attempt of the same run
    (here: made by another ledger, still within its deadline) does not stop the next one."""
    from domain.events import SandboxLimits
    from domain.runner.sandbox import SandboxSpec

    rig.schedule("installs-and-runs", "r-ghost")
    ghost = SandboxSpec(
        name="argusic-run-r-ghost-c1-ghost",
        image=BASELINE_IMAGE,
        labels={
            "argusic.run": "r-ghost",
            "argusic.ledger": "other",
            "argusic.deadline": "2099-01-01T00:00:00Z",
        },
        limits=SandboxLimits(memory_bytes=64 << 20, nano_cpus=10**8, pids=16, network="none"),
        pid1_seconds=120,
        environment={},
    )
    rig.runner.sandboxes.create(ghost, b"\0" * 1024)
    try:
        assert rig.work().executed == {"r-ghost": "exited"}
        made = next(e for e in rig.events("r-ghost") if isinstance(e, SandboxCreated))
        assert made.name != ghost.name
        assert made.name.startswith("argusic-run-r-ghost-c1-")
        assert sweep(rig.runner).sandboxes_removed == []  # another ledger's, not yet overdue
    finally:
        rig.runner.sandboxes.remove(ghost.name)


def test_a_sandbox_killed_from_outside_aborts_the_run_and_deletes_the_key(rig: Rig) -> None:
    """Inspect #4709: a dead sandbox is noticed; the run is `aborted` and its key deleted."""
    import threading

    rig.schedule("outlasts-budget", "r-killed", budget=60)

    def kill_when_running() -> None:
        assert until(lambda: started(rig, "r-killed"), 60)
        time.sleep(1)
        name = rig.state("r-killed").sandbox
        rig.runner.sandboxes.api.kill(name)

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    assert rig.work().executed == {"r-killed": "aborted"}
    killer.join()
    state = rig.state("r-killed")
    assert "stopped from outside" in getattr(state.ending, "reason", "")
    _, secret = key_of(rig, "r-killed")
    assert model_call(rig.stand_in, secret) == 401
    assert rig.live_keys() == []
    assert rig.containers() == []


def test_an_agent_process_out_of_memory_aborts_the_run_and_deletes_the_key(rig: Rig) -> None:
    """Inspect #4709's other half: the kernel killing a process of the sandbox for memory (its
    limit is 256 MB here) is the sandbox failing, never the agent's result."""
    hog = ["sh", "-c", "echo filling; x=$(head -c 600000000 /dev/zero | tr '\\0' a); echo $x"]
    rig.schedule("installs-and-runs", "r-oom", command=hog)
    assert rig.work().executed == {"r-oom": "aborted"}
    assert "out of memory" in getattr(rig.state("r-oom").ending, "reason", "")
    _, secret = key_of(rig, "r-oom")
    assert model_call(rig.stand_in, secret) == 401
    assert rig.live_keys() == []
    assert rig.containers() == []


@pytest.mark.parametrize("how", ["cancel", "stop-all"])
def test_cancel_and_emergency_stop_delete_keys_and_record_it(
    rig: Rig, cli_env: dict[str, str], how: str
) -> None:
    """Methodology v1.5: before 2026-10-08 a cancel or an emergency stop did not delete the key.
    Both are the real commands, run while a worker executes the run."""
    import threading

    from tests.conftest import argusic

    rig.schedule("outlasts-budget", "r-stop", budget=60)
    done: dict[str, object] = {}
    worker = threading.Thread(target=lambda: done.update(rig.work().executed))
    worker.start()
    assert until(lambda: started(rig, "r-stop"), 60)
    key_hash, secret = key_of(rig, "r-stop")
    command = ["cancel", "r-stop"] if how == "cancel" else ["stop-all"]
    result = argusic({**cli_env, **rig.env}, *command, "--by", "ops", "--json")
    assert result.returncode == 0, result.stderr
    worker.join(60)
    assert done == {"r-stop": "cancelled"}
    events = rig.events("r-stop")
    assert [type(e).__name__ for e in events].count("RunCancelled") == 1
    deleted = [e for e in events if isinstance(e, ModelKeyDeleted)]
    assert [d.key_hash for d in deleted] == [key_hash]
    assert model_call(rig.stand_in, secret) == 401
    assert rig.containers() == []
    assert rig.state("r-stop").phase == "closed"
    cancelled = rig.recorded("r-stop")  # recorded, and never counted
    assert cancelled is not None
    assert (cancelled.status, run_outcome(cancelled)) == ("cancelled", None)
    if how == "stop-all":
        stops = [r.event for r in rig.ledger.stream("runner-sweeps")]
        assert [type(e).__name__ for e in stops] == ["EmergencyStopped"]


def test_a_closer_finding_the_session_dropped_returns_the_run_the_other_closed(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two closers of one run (a cancel or an emergency stop, and the run's worker): the one
    that loses finds the session files dropped by the other while it reads them, and returns
    the run as the other closed it. It used to raise, and an emergency stop took the worker
    down with it."""
    import threading

    from api.services.run_end import cancel, finish

    rig.schedule("outlasts-budget", "r-race", budget=60)
    done: dict[str, object] = {}
    worker = threading.Thread(target=lambda: done.update(rig.work().executed))
    worker.start()
    assert until(lambda: started(rig, "r-race"), 60)
    record_run, raced = rig.runner.record_run, threading.Event()

    def closed_meanwhile(*args: object) -> object:
        """The first closer to record the run is overtaken: the other closes the run and
        drops its session first."""
        if not raced.is_set():
            raced.set()
            finish(rig.runner, rig.state("r-race"), None, None, by="the other closer")
        return record_run(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(rig.runner, "record_run", closed_meanwhile)
    closed = cancel(rig.runner, "r-race", "ops", "a test of two closers")
    worker.join(60)
    assert raced.is_set()
    assert closed.phase == "closed"
    assert done == {"r-race": "cancelled"}
    kinds = [type(e).__name__ for e in rig.events("r-race")]
    assert (kinds.count("RunClosed"), kinds.count("RunCancelled")) == (1, 1)
    assert rig.recorded("r-race") is not None


def test_runs_and_keys_sweep_print_the_contract_s_documents(
    rig: Rig, cli_env: dict[str, str]
) -> None:
    import json

    from tests.conftest import argusic

    rig.schedule("installs-and-runs", "r-cli")
    rig.schedule("fails-to-install", "r-later")
    env = {**cli_env, **rig.env}
    scheduled = json.loads(argusic(env, "runs", "--state", "scheduled", "--json").stdout)
    assert [r["run_id"] for r in scheduled["runs"]] == ["r-cli", "r-later"]
    worked = argusic(env, "worker", "--once", "--worker-id", "w-cli", "--json")
    assert worked.returncode == 0, worked.stderr
    document = json.loads(argusic(env, "runs", "--state", "finished", "--json").stdout)
    rows = {r["run_id"]: r for r in document["runs"]}
    assert set(rows["r-cli"]) >= {
        "run_id",
        "state",
        "agent",
        "project",
        "attempt",
        "budget_minutes",
        "outcome",
        "score",
        "ended",
    }
    assert rows["r-cli"]["state"] == "finished"
    assert rows["r-cli"]["ended"] == "exited"
    assert rows["r-cli"]["outcome"] == "pass_full"
    assert rows["r-cli"]["score"] == 100
    assert rows["r-cli"]["budget_minutes"] == 1
    assert rows["r-later"]["outcome"] == "fail"
    swept = argusic(env, "keys", "sweep", "--json")
    assert swept.returncode == 0, swept.stderr
    assert {k: v for k, v in json.loads(swept.stdout).items() if k != "runs_closed"} == {
        "keys_deleted": 0,
        "sandboxes_removed": 0,
    }


REPORT = (
    '{"installed": true, "started": true, "errors_found": %s, "errors_fixed": %s, '
    '"test_depth": "tier1_real", "verified_how": "with $OPENROUTER_API_KEY", "final_state": "ok"}'
)
BAD_REPORTS = {
    "r-fixed-more": (REPORT % (1, 2), "the agent's report breaks section 8: a run cannot fix"),
    "r-malformed": ("not JSON, but $OPENROUTER_API_KEY", "the agent's report could not be read"),
    "r-wrong-type": (REPORT % ('"one"', 0), "the agent's report could not be read"),
    "r-no-report": (None, "the agent wrote no report at /argusic/report.json"),
}


def test_a_report_the_rules_refuse_ends_the_run_invalid_and_the_worker_goes_on(rig: Rig) -> None:
    """Issue 27: each kind of bad report, one worker pass: every run recorded invalid with the
    true reason, closed, its session files gone, and no file under ARGUSIC_HOME holds its key."""
    for run_id, (report, _) in BAD_REPORTS.items():
        writes = f"cat > /argusic/report.json <<EOF\n{report}\nEOF\n" if report else "true"
        rig.schedule("installs-and-runs", run_id, command=["sh", "-c", writes])
    assert rig.work(concurrency=2).executed == dict.fromkeys(BAD_REPORTS, "exited")
    secrets = [key_of(rig, run_id)[1].encode() for run_id in BAD_REPORTS]
    for run_id, (_, reason) in BAD_REPORTS.items():
        recorded = rig.recorded(run_id)
        assert recorded is not None, run_id
        assert (recorded.status, recorded.report) == ("invalid", None), run_id
        assert (recorded.invalid_reason or "").startswith(reason), recorded.invalid_reason
        assert rig.state(run_id).phase == "closed"
        assert not rig.runner.evidence_paths(run_id)[0].exists()
    for path in rig.settings.home.rglob("*"):
        if path.is_file():
            held = path.read_bytes()
            assert not any(secret in held for secret in secrets), path
    assert rig.live_keys() == []
    assert rig.containers() == []


def test_a_run_whose_close_failed_is_closed_later_with_its_agents_report(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker goes on when a run's close fails (the run stays ending); the restart closes
    it with the report its agent wrote, kept beside the session files, not as a run with none."""
    rig.schedule("installs-and-runs", "r-left-ending")
    recording = rig.runner.record_run

    def store_down(*_: object) -> object:
        raise OSError("the artifact store is down")

    monkeypatch.setattr(rig.runner, "record_run", store_down)
    assert rig.work().executed == {"r-left-ending": "ending"}
    assert rig.state("r-left-ending").phase == "ending"
    assert rig.runner.kept_report("r-left-ending") is not None
    monkeypatch.setattr(rig.runner, "record_run", recording)
    rig.work()  # the restart: recovered, closed
    recorded = rig.recorded("r-left-ending")
    assert recorded is not None
    assert (recorded.status, recorded.invalid_reason) == ("finished", None)
    assert recorded.report is not None
    assert recorded.report.installed is True
    assert rig.state("r-left-ending").phase == "closed"
    assert rig.runner.kept_report("r-left-ending") is None


def test_a_run_whose_key_outlasts_its_bound_at_the_close_is_ending_until_the_sweeper_closes_it(
    make_rig: Callable[..., Rig],
) -> None:
    """Section 7: a key the provider is slow to delete at the close (past the client's bound)
    leaves the run ending, and the worker says so, never that it was recorded; once the run's
    deadline is past, the sweeper deletes what is left and closes it."""
    rig = make_rig(keys_timeout=2)
    rig.schedule("installs-and-runs", "r-slow-delete")
    rig.stand_in.switches.delete_delay = 3  # over the client's 2 s
    assert rig.work().executed == {"r-slow-delete": "ending"}
    assert rig.state("r-slow-delete").phase == "ending"
    assert rig.recorded("r-slow-delete") is None
    rig.stand_in.switches.delete_delay = 0
    clock = rig.runner.clock
    rig.runner.clock = lambda: clock() + timedelta(hours=1)
    assert sweep(rig.runner).runs_closed == ["r-slow-delete"]
    assert rig.recorded("r-slow-delete") is not None
    assert rig.live_keys() == []


def test_a_run_ruled_rerun_on_dispute_is_run_again_by_the_worker(rig: Rig) -> None:
    """Issue 27, item 1: the worker loop turns the request into `<id>~r2`, as the run ran."""
    rig.schedule("installs-and-runs", "r-disputed")
    assert rig.work().executed == {"r-disputed": "exited"}, rig.events("r-disputed")
    operator = World(rig.ledger, rig.folder)
    operator.act({"action": "dispute_open", "run_id": "r-disputed", "claimant": "a", "claim": "b"})
    operator.act(
        {"action": "dispute_resolve", "dispute": "r-disputed.1", "outcome": "rerun", "note": "n"}
    )
    executed = rig.work().executed
    assert executed == {"r-disputed~r2": "exited"}, (
        rig.events("r-disputed~r2"),
        rig.state("r-disputed"),
    )
    original, again = rig.state("r-disputed").scheduled, rig.state("r-disputed~r2").scheduled
    assert again.replaces == "r-disputed"
    assert (again.project, again.agent, again.tier) == (
        original.project,
        original.agent,
        original.tier,
    )
    assert rig.recorded("r-disputed~r2") is not None
    assert rig.work().executed == {}  # once
