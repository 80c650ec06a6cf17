"""Two workers on one PostgreSQL never run the same attempt: the claim goes at the next
version of the run's stream, and the ledger refuses the second writer."""

from __future__ import annotations

import threading

import pytest

from api.services.run_log import RunLog
from api.services.worker import claim, run_worker
from api.wiring import Settings, open_ledger
from domain.events import RunClaimed
from tests.runner_fixtures import Rig

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]


def test_a_claim_race_has_one_winner(rig: Rig, settings: Settings) -> None:
    rig.schedule("installs-and-runs", "r-race")
    other = open_ledger(settings)
    try:
        stale = RunLog(other).load("r-race")
        first = claim(rig.runner, rig.state("r-race"), "w1")
        rig.runner.log = RunLog(other)
        second = claim(rig.runner, stale, "w2")  # read before the first claim landed
    finally:
        other.close()
    assert first is not None
    assert second is None
    assert [e.worker for e in rig.events("r-race") if isinstance(e, RunClaimed)] == ["w1"]


def test_two_workers_never_run_the_same_attempt(rig: Rig, settings: Settings) -> None:
    from api.wiring import build_runner

    runs = [f"r-{n}" for n in range(4)]
    for run_id in runs:
        rig.schedule("installs-and-runs", run_id)
    ledgers = [open_ledger(settings) for _ in range(2)]
    reports = {}

    def work(n: int) -> None:
        runner = build_runner(settings, ledgers[n], rig.env)
        runner.poll_seconds = 0.1
        reports[n] = run_worker(runner, f"w{n}", 2, once=True)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
    finally:
        for ledger in ledgers:
            ledger.close()
    executed = [run for report in reports.values() for run in report.executed]
    assert sorted(executed) == runs  # each run by exactly one worker
    for run_id in runs:
        claims = [e for e in rig.events(run_id) if isinstance(e, RunClaimed)]
        assert len(claims) == 1
        assert rig.state(run_id).ended == "exited"
