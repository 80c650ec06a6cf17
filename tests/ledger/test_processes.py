"""Several processes at once, and a process killed mid-batch."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api.wiring import Settings
from ledger.ledger import Ledger
from ledger.verify import verify
from tests.conftest import append_editions
from tests.ledger import workers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("point", ["signing", "sealed"])
def test_a_batch_killed_while_sealing_its_checkpoint_leaves_none_of_it(
    ledger: Ledger, cli_env: dict[str, str], point: str
) -> None:
    append_editions(ledger, 0, 3)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.ledger.workers", "crash", point],
        cwd=ROOT,
        env=cli_env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "INSERTED, NOT COMMITTED"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert ledger.size() == 3 + 2 * workers.BATCH
    assert ledger.recorder.count_rows() == ledger.size()
    report = verify(ledger)
    assert report.ok, report.problems
    append_editions(ledger, 100, 5)  # the ledger goes on from where the last commit left it
    assert ledger.size() == 3 + 2 * workers.BATCH + 5
    assert verify(ledger).ok


@pytest.fixture
def spawned(ledger: Ledger, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    """The ledger, with its settings in the environment that spawned children inherit."""
    monkeypatch.setenv("ARGUSIC_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARGUSIC_HOME", str(settings.home))
    return ledger


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_four_processes_append_at_once(spawned: Ledger) -> None:
    rounds, shared_streams = 30, 3
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(workers.writer, [(w, rounds, shared_streams) for w in range(4)])
    written = sum(own + shared for own, shared in results)
    assert written == 4 * rounds * 6
    rows = list(spawned.rows())
    assert [r[0] for r in rows] == list(range(1, written + 1)), "every event once, no gaps"
    assert len({(r[1], r[2]) for r in rows}) == written
    for s in range(shared_streams):
        versions = [e.version for e in spawned.stream(f"edition:shared.{s}")]
        assert versions == list(range(1, len(versions) + 1))
    assert (
        sum(len(spawned.stream(f"edition:shared.{s}")) for s in range(shared_streams)) == 4 * rounds
    )
    assert verify(spawned).ok


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_conflicting_write_fails_whole_while_one_wins(spawned: Ledger) -> None:
    start_at = time.time() + 2.0
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        won = pool.starmap(workers.contender, [(w, start_at) for w in range(4)])
    assert sorted(won) == [False, False, False, True]
    winner = won.index(True)
    streams = {r[1] for r in spawned.rows()}
    assert streams == {"edition:contested"} | {f"edition:c{winner}.{j}" for j in range(9)}
    assert spawned.size() == 10
    assert verify(spawned).ok
