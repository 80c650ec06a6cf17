"""PostgreSQL restarted under the system (issue 16), on a private cluster: an ingest cut off
fails with a clear error, keeps only whole runs and completes when run again; a server under
reads answers a JSON problem document (503) while the database is away and recovers by itself
when it is back."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.services.ingest import ingest
from api.wiring import Argusic, Settings, init
from ledger.ledger import Ledger
from ledger.verify import verify
from tests.conftest import ARGUSIC, argusic
from tests.faults.observed import many_runs, observed
from tests.faults.private_postgres import PrivatePostgres, fresh_database, private_postgres
from tests.publishing import publish
from tests.servers import free_port, stop, wait_for

__all__ = ["private_postgres"]  # the fixture, used by name

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def env_of(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "ARGUSIC_DATABASE_URL": settings.database_url,
        "ARGUSIC_HOME": str(settings.home),
        "ARGUSIC_LOG_FORMAT": "json",
    }


def ledger_on(cluster: PrivatePostgres, folder: Path) -> tuple[Settings, Ledger]:
    url = fresh_database(cluster, f"d{uuid.uuid4().hex[:12]}")
    settings = Settings(database_url=url, home=folder, log_format="json")
    book, _ = init(settings)
    return settings, book


def test_an_ingest_cut_off_by_a_restart_fails_clearly_and_its_rerun_completes_it(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    (tmp_path / "records").mkdir()
    records = many_runs(tmp_path / "records", 1_500)
    own, reference = ledger_on(private_postgres, tmp_path / "reference")
    ingest(reference, [records], Argusic(own, reference).store)
    settings, ledger = ledger_on(private_postgres, tmp_path / "home")

    child = subprocess.Popen(
        [ARGUSIC, "ingest", str(records), "--json"],
        env=env_of(settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while ledger.size() == 0 and child.poll() is None:
        time.sleep(0.002)  # polling the ledger: the child's first commit is the signal
    private_postgres.restart()
    out, err = child.communicate(timeout=120)

    assert child.returncode == 2, (out, err)
    assert "Traceback" not in err
    error = json.loads(out)["error"]
    assert "the database failed while appending" in error
    assert "run the same ingest again" in error
    cut_at = ledger.size()
    assert 0 < cut_at < reference.size()
    assert verify(ledger).ok
    events, documents = observed(ledger)
    assert events == observed(reference)[0][:cut_at]
    assert all(d["evidence"] for name, d in documents.items() if name.startswith("run "))

    again = argusic(env_of(settings), "ingest", str(records), "--json")
    assert again.returncode == 0, again.stdout
    assert observed(ledger) == observed(reference)
    assert verify(ledger).ok


READS = [
    "/healthz",
    "/ledger/checkpoint",
    "/leaderboard?cycle=2026-09",
    "/runs/r-000001",
    "/projects/octo/p0",
    "/methodology/editions",
]


def logged_errors(log: Path) -> list[dict[str, object]]:
    """What the server logged as an error or with a traceback (each of its lines is JSON)."""
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    return [line for line in lines if line["level"] in ("error", "critical") or "exception" in line]


class Served:
    def __init__(self, origin: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.origin, self.process, self.log = origin, process, log

    def get(self, path: str) -> httpx.Response:
        # The bound only turns a hang into a failure; the pool gives up on the database in 5 s.
        return httpx.get(self.origin + path, timeout=60)

    def answers(self) -> dict[str, Any]:
        found = {}
        for path in READS:
            response = self.get(path)
            assert response.status_code == 200, (path, response.text)
            found[path] = response.json()
        return found


@pytest.fixture
def served(private_postgres: PrivatePostgres, tmp_path: Path) -> Iterator[Served]:
    """`argusic serve` on the private cluster, with runs ingested and published."""
    settings, ledger = ledger_on(private_postgres, tmp_path / "home")
    (tmp_path / "records").mkdir()
    ingest(ledger, [many_runs(tmp_path / "records", 30)], Argusic(settings, ledger).store)
    publish(ledger, settings.home)
    ledger.close()
    port, log = free_port(), tmp_path / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [ARGUSIC, "serve", "--port", str(port)],
            env=env_of(settings),
            start_new_session=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(f"http://127.0.0.1:{port}/healthz", process)
        yield Served(f"http://127.0.0.1:{port}", process, log)
    finally:
        stop(process)


def is_problem_503(response: httpx.Response) -> bool:
    return response.status_code == 503 and response.json() == {
        "status_code": 503,
        "detail": "the database is unavailable; try again shortly",
    }


def back_again(served: Served) -> None:
    """Poll until the server answers from the database again (its pool reconnecting)."""
    for _ in range(600):
        if served.get("/healthz").status_code == 200:
            return
        time.sleep(0.1)
    pytest.fail("the server did not recover once the database was back")


def test_a_server_answers_503_while_postgres_is_down_and_recovers_by_itself(
    private_postgres: PrivatePostgres, served: Served
) -> None:
    before = served.answers()
    private_postgres.stop()
    try:
        with ThreadPoolExecutor(len(READS)) as readers:  # each waits for the pool's bound
            during = dict(zip(READS, readers.map(served.get, READS), strict=True))
    finally:
        private_postgres.start()
    for path, response in during.items():
        assert is_problem_503(response), (path, response.status_code, response.text)
    back_again(served)
    assert served.answers() == before
    assert served.process.poll() is None, "the same server process, never restarted"
    assert not logged_errors(served.log)


def test_reads_through_a_postgres_restart_get_their_answer_or_a_clean_503(
    private_postgres: PrivatePostgres, served: Served
) -> None:
    before = served.answers()
    seen: list[tuple[str, httpx.Response]] = []
    restarted = threading.Event()

    def reader() -> None:
        while not restarted.is_set():
            for path in READS:
                seen.append((path, served.get(path)))

    readers = [threading.Thread(target=reader) for _ in range(4)]
    for thread in readers:
        thread.start()
    try:
        while len(seen) < 20:  # the readers are under way
            time.sleep(0.01)
        private_postgres.restart()
    finally:
        restarted.set()
        for thread in readers:
            thread.join()
    for path, response in seen:
        assert response.status_code == 200 or is_problem_503(response), (path, response.text)
        if response.status_code == 200 and path != "/healthz":
            assert response.json() == before[path]
    back_again(served)
    assert served.answers() == before
    assert not logged_errors(served.log)
