"""Issue 28, deliverables 7 and 8 on the real engine and the key stand-in: a run that needs a GPU
waits, visibly, for a worker started with `--gpu` (methodology section 6a), which keys it with
the limit configured apart; and every worker sweeps on a schedule, not only at start (section
7, "un barrido programado elimina cualquier clave que ya no pertenezca a un trabajo en curso")."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from adapters.keys_stand_in import KeyStandIn
from api.services.sweep import sweep
from api.services.worker import run_worker
from domain.events import ModelKeyRequested, RunClaimed, SweepCompleted, streams
from domain.runner.naming import key_name
from ledger.ledger import Ledger
from tests.conftest import argusic
from tests.runner_fixtures import Rig, until

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def swept_keys(rig: Rig) -> list[list[str]]:
    """The keys each recorded sweep deleted."""
    stream = rig.ledger.stream(streams.SWEEPS)
    return [r.event.keys_deleted for r in stream if isinstance(r.event, SweepCompleted)]


def claims(rig: Rig, run_id: str) -> list[str]:
    return [e.worker for e in rig.events(run_id) if isinstance(e, RunClaimed)]


def test_a_gpu_run_waits_for_a_gpu_worker_which_keys_it_with_the_gpu_limit(
    make_rig: Callable[..., Rig], stand_in: KeyStandIn, cli_env: dict[str, str]
) -> None:
    rig = make_rig(gpu_limit=7)
    rig.schedule("installs-and-runs", "r-gpu", needs_gpu=True)
    rig.schedule("installs-and-runs", "r-plain")
    env = {**cli_env, **rig.env}

    report = rig.work(worker="w-plain")  # a worker without --gpu
    assert report.executed == {"r-plain": "exited"}
    assert claims(rig, "r-gpu") == []
    assert rig.state("r-gpu").phase == "scheduled"

    listed = argusic(env, "runs", "--state", "scheduled", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)["runs"]
    assert (row["run_id"], row["needs_gpu"]) == ("r-gpu", True)
    assert row["waiting"].startswith("a worker started with --gpu")
    shown = argusic(env, "runs", "--state", "scheduled")
    assert "r-gpu" in shown.stdout
    assert "(waits for a worker started with --gpu" in shown.stdout
    finished = json.loads(argusic(env, "runs", "--state", "finished", "--json").stdout)
    assert [(r["run_id"], r["needs_gpu"], r["waiting"]) for r in finished["runs"]] == [
        ("r-plain", False, None)
    ]

    worked = argusic(env, "worker", "--once", "--gpu", "--worker-id", "w-gpu", "--json")
    assert worked.returncode == 0, worked.stderr
    gpu_report = json.loads(worked.stdout)
    assert (gpu_report["gpu"], list(gpu_report["executed"])) == (True, ["r-gpu"])
    assert claims(rig, "r-gpu") == ["w-gpu"]
    asked = {
        e.run_id: e.limit_usd
        for run_id in ("r-gpu", "r-plain")
        for e in rig.events(run_id)
        if isinstance(e, ModelKeyRequested)
    }
    assert asked == {"r-gpu": 7, "r-plain": 3}  # section 6a: configured apart
    at_stand_in = {k.name.rsplit(":", 1)[1]: k.limit for k in stand_in.keys.values()}
    assert at_stand_in == {"r-gpu": 7.0, "r-plain": 3.0}
    # This engine has no GPU: it made the sandbox with the request and refused to start
    # it, so the run was aborted (our tooling) and asked for again; on a GPU host it runs.
    state = rig.state("r-gpu")
    assert state.phase == "closed"
    assert state.key_deleted
    assert stand_in.live_keys() == []


def test_every_worker_sweeps_on_its_schedule(
    make_rig: Callable[..., Rig], stand_in: KeyStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key left by a run that is gone is deleted while the worker runs, without a restart."""
    rig = make_rig(sweep=0.5)
    sweeps: list[float] = []

    def counted(runner: Any) -> Any:
        done = sweep(runner)
        sweeps.append(time.monotonic())  # counted once done: a key made mid-sweep is the next's
        return done

    monkeypatch.setattr("api.services.worker.sweep", counted)
    stop = threading.Event()
    worker = threading.Thread(
        target=run_worker, args=(rig.runner, "w-sweep", 1), kwargs={"stop": stop}
    )
    worker.start()
    try:
        assert until(lambda: len(sweeps) >= 1)  # the sweep at start is done
        runner = rig.runner
        left = runner.keys.create(
            key_name(runner.ledger_tag, "r-gone", 1), 3, runner.clock() + timedelta(hours=1)
        )
        assert [k.hash for k in stand_in.live_keys()] == [left.info.hash]
        assert until(lambda: stand_in.live_keys() == [], seconds=10)
        assert worker.is_alive()
        assert until(lambda: len(sweeps) >= 2, seconds=10)  # a later sweep deleted it
        # the key is deleted before the sweep is recorded: wait for the record too
        assert until(lambda: swept_keys(rig) == [[left.info.hash]], seconds=10)
        assert until(lambda: len(sweeps) >= 4, seconds=10)  # and it goes on sweeping
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive()


def test_a_failing_sweep_does_not_stop_the_worker(
    make_rig: Callable[..., Rig], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(sweep=0.2)
    sweeps: list[int] = []

    def failing(runner: Any) -> None:
        sweeps.append(1)
        if len(sweeps) == 2:
            raise OSError("the key API went away")

    monkeypatch.setattr("api.services.worker.sweep", failing)
    stop = threading.Event()
    worker = threading.Thread(
        target=run_worker, args=(rig.runner, "w-sweep", 1), kwargs={"stop": stop}
    )
    worker.start()
    try:
        assert until(lambda: len(sweeps) >= 4, seconds=10)
        assert worker.is_alive()
    finally:
        stop.set()
        worker.join(30)


class _StaleOnce:
    """A ledger whose first read of a stream misses what another writer appended."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger, self.stale = ledger, True

    def stream(self, name: str) -> list[Any]:
        if self.stale:
            self.stale = False
            return []
        return self.ledger.stream(name)

    def append(self, batch: list[Any]) -> Any:
        return self.ledger.append(batch)


def test_two_workers_sweeping_at_once_both_record(ledger: Ledger) -> None:
    """Every worker sweeps on its schedule, so two may record a sweep at the same version of
    the sweeps' stream: the second reads it again and records after the first."""
    from api.services.sweep import _record
    from tests.runner_events import T0

    first = SweepCompleted(swept_at=T0, keys_deleted=["k1"], sandboxes_removed=[])
    second = SweepCompleted(swept_at=T0, keys_deleted=["k2"], sandboxes_removed=[])
    _record(ledger, first)
    _record(_StaleOnce(ledger), second)  # type: ignore[arg-type]
    recorded = [r.event for r in ledger.stream(streams.SWEEPS)]
    assert [e.keys_deleted for e in recorded] == [["k1"], ["k2"]]  # type: ignore[attr-defined]
