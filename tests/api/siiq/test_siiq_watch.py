"""`argusic siiq watch` (SI-IQ section 8's hourly schedule) as a real process over the sources
served on 127.0.0.1 and the cross-check stand-in: a JSON line a round, and a stop between or
during a round never leaves a round part-way appended; its rounds are the hourly runs a halted
publication counts."""

from __future__ import annotations

import errno
import json
import os
import select
import signal
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from adapters.crosscheck import ChatCrossChecker
from api.services.siiq_watch import Watch, WatchRound, watch
from domain.events import PublicationHalted, SiiqPublished, SiiqUpdateRan
from ledger.verify import verify
from tests.api.siiq.conftest import ZIP, World
from tests.conftest import ARGUSIC, argusic


def watch_env(world: World, cli_env: dict[str, str], folder: Path) -> dict[str, str]:
    """The subprocess's environment: the world's ledger, sources and checker."""
    config = world.config
    lines = [f"[{name}]\nurls = {json.dumps(urls)}" for name, urls in config.sources.items()]
    lines.append(f"[github]\napi = {json.dumps(config.github.api)}")
    lines.append(f"raw = {json.dumps(config.github.raw)}")
    (folder / "sources.toml").write_text("\n".join(lines) + "\n")
    return {
        **cli_env,
        "ARGUSIC_SOURCES_CONFIG": str(folder / "sources.toml"),
        "ARGUSIC_CROSSCHECK_URL": world.stand_in.url,
        "ARGUSIC_CROSSCHECK_FAMILY": "Checker Lab",
    }


def start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as stderr:
        return subprocess.Popen(
            [ARGUSIC, "siiq", "watch", "--every", "2"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )


def next_line(child: subprocess.Popen[bytes], seconds: float = 120) -> dict[str, Any]:
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], seconds)
    assert ready, f"no round reported within {seconds}s"
    line = child.stdout.readline()
    assert line, f"the watch ended (exit {child.wait(10)})"
    return dict(json.loads(line))


def wait_for_round(log: Path, number: int, seconds: float = 60) -> None:
    """Until the watch's stderr says round `number` started."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
        if any(e.get("event") == "siiq_watch_round" and e["round"] == number for e in started):
            return
        time.sleep(0.05)
    raise AssertionError(f"round {number} did not start within {seconds}s")


def test_the_watch_reports_each_round_and_a_stop_never_leaves_a_round_half_appended(
    world: World, cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = watch_env(world, cli_env, tmp_path)
    log = tmp_path / "watch.log"
    child = start(env, log)
    try:
        rounds = [next_line(child) for _ in range(3)]
        os.kill(child.pid, signal.SIGINT)  # between rounds: it ends at once
        assert child.wait(timeout=10) == 0
        assert child.stdout is not None
        assert child.stdout.read() == b""
    finally:
        child.kill()
        child.wait()
    assert [r["round"] for r in rounds] == [1, 2, 3]
    first = rounds[0]
    assert {r["source"]: r["status"] for r in first["fetched"]}["epoch"] == "new"
    assert first["update"]["published"] > 0
    assert first["update"]["calibration"]["accepted"] is True
    assert first["error"] is None
    assert all(r["update"]["halted"] is False for r in rounds)
    assert {r["status"] for r in rounds[2]["fetched"]} == {"unchanged"}
    sizes = [r["size"] for r in rounds]
    assert sizes == sorted(sizes)
    assert world.ledger.size() == sizes[-1]  # every round whole, nothing after the last
    assert len(world.events(SiiqUpdateRan)) == 3

    world.server.slow(ZIP, 3)  # the next round waits on Epoch AI's file
    log = tmp_path / "again.log"
    child = start(env, log)
    try:
        wait_for_round(log, 1)
        time.sleep(1)  # inside the fetch
        os.kill(child.pid, signal.SIGTERM)
        during = next_line(child)
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
        child.wait()
    assert during["round"] == 1
    assert during["error"] is None
    assert during["update"]["publication"] is not None  # the round went to its end
    assert world.ledger.size() == during["size"] > sizes[-1]
    assert len(world.events(SiiqUpdateRan)) == 4
    last = next(iter(world.ledger.events(world.ledger.size() - 1))).event
    assert isinstance(last, SiiqPublished | PublicationHalted)  # a round's last append
    assert verify(world.ledger).ok
    checked = argusic(env, "ledger", "verify", "--json")
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)["ok"] is True


def rounds(world: World, count: int, step: timedelta) -> list[WatchRound]:
    """`count` rounds of the watch in this process, the clock moved by `step` after each."""
    stop, seen = threading.Event(), []

    def emit(report: WatchRound) -> None:
        seen.append(report)
        world.now += step
        if len(seen) == count:
            stop.set()

    config = world.config
    with (
        world.argusic.source_reader(config) as reader,
        ChatCrossChecker(world.stand_in.url, "other-family", "token", "Checker Lab") as checker,
    ):
        runner = Watch(
            world.ledger, reader, sources=config.sources, checker=checker, clock=lambda: world.now
        )
        watch(runner.round, 0, stop, emit)
    world.approve()
    return seen


def test_the_watch_rounds_are_the_hourly_runs_a_halted_publication_counts(world: World) -> None:
    """Section 8: a publication halted because a ranked model would vanish resumes by itself
    once the situation held for six hourly runs: rounds an hour apart each count, rounds
    within one clock hour count once."""
    world.hour()
    for key in [k for k in world.export.scores if k[0] == "Model F"]:
        del world.export.scores[key]
    world.serve_export()
    world.hour()
    world.hour(6)  # 08:00: the deletions are removed, the ranked model would vanish
    assert len(world.events(PublicationHalted)) == 1
    within = rounds(world, 12, timedelta(minutes=4))  # 08:00 to 08:44: the same hour
    assert all(r.update and r.update.publication for r in within)
    assert not any(r.update.publication.published for r in within if r.update)
    assert len(world.events(PublicationHalted)) == 13
    assert "Model F" in {m["slug"] for m in world.index()["models"]}
    world.now = world.now.replace(hour=9, minute=0)
    hourly = rounds(world, 5, timedelta(hours=1))  # 09:00 to 13:00: runs 2 to 6
    outcomes = [r.update.publication for r in hourly if r.update]
    assert [p.published for p in outcomes if p] == [False, False, False, False, True]
    assert "Model F" not in {m["slug"] for m in world.index()["models"]}


class FullDiskOnce:
    """A source reader whose first read fails to archive its file (a full disk)."""

    def __init__(self, reader: Any) -> None:
        self.reader, self.failed = reader, False

    def read(self, *args: Any) -> Any:
        if not self.failed:
            self.failed = True
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.reader.read(*args)


def test_a_round_that_fails_is_reported_and_the_next_round_starts_over(world: World) -> None:
    seen: list[WatchRound] = []
    stop = threading.Event()

    def emit(report: WatchRound) -> None:
        seen.append(report)
        world.now += timedelta(hours=1)
        if len(seen) == 2:
            stop.set()

    with (
        world.argusic.source_reader(world.config) as reader,
        ChatCrossChecker(world.stand_in.url, "other-family", "token", "Checker Lab") as checker,
    ):
        runner = Watch(
            world.ledger,
            FullDiskOnce(reader),
            sources=world.config.sources,
            checker=checker,
            clock=lambda: world.now,
        )
        watch(runner.round, 0, stop, emit)
    failed, then = seen
    assert failed.error == "OSError: [Errno 28] No space left on device"
    assert (failed.fetched, failed.update) == ([], None)
    assert failed.size == 0  # nothing of the round was appended before the failure
    assert then.error is None
    assert then.update is not None
    assert then.update.published > 0
    assert then.size == world.ledger.size()
