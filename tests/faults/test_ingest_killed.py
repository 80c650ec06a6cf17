"""An ingest killed between its batches, then run again, ends in exactly the state of an
ingest never interrupted (issue 16): each run's events go in one batch with its evidence's,
and a run already recorded is passed over by the next ingest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from api.services.ingest import ingest
from api.wiring import Argusic, Settings, init
from ledger.ledger import Ledger
from ledger.verify import verify
from tests.conftest import ARGUSIC, PG_URL, argusic, is_postgres
from tests.faults.observed import many_runs, observed

RUNS = 1_500
"""About 10,000 events: ten batches, so a kill lands with most of them still to go."""


@pytest.fixture
def records(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    return many_runs(folder, RUNS)


@pytest.fixture
def reference(settings: Settings, records: Path, tmp_path: Path) -> Iterator[Ledger]:
    """The same records ingested once, uninterrupted, into a ledger of their own."""
    if is_postgres(settings):
        schema = f"t_{uuid.uuid4().hex[:16]}"
        url = f"{PG_URL}?schema={schema}"
    else:
        url = f"sqlite:///{tmp_path}/reference.db"
    own = Settings(database_url=url, home=tmp_path / "reference", log_format="json")
    book, _ = init(own)
    ingest(book, [records], Argusic(own, book).store)
    yield book
    book.close()
    if is_postgres(settings):
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def killed_once_appending(env: dict[str, str], records: Path, ledger: Ledger) -> int:
    """Start `argusic ingest`, SIGKILL it as soon as the ledger shows a batch of it; the
    ledger's size then."""
    child = subprocess.Popen(
        [ARGUSIC, "ingest", str(records), "--json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while ledger.size() == 0 and child.poll() is None:
            time.sleep(0.002)  # polling the ledger: the child's first commit is the signal
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL, "the ingest ended before it could be killed"
    return ledger.size()


@pytest.mark.slow
def test_an_ingest_killed_between_batches_then_run_again_ends_as_if_never_interrupted(
    ledger: Ledger, cli_env: dict[str, str], records: Path, reference: Ledger
) -> None:
    full = reference.size()
    killed_at = killed_once_appending(cli_env, records, ledger)
    assert 0 < killed_at < full

    interrupted = verify(ledger)
    assert interrupted.ok, interrupted.problems
    events, documents = observed(ledger)
    assert events == observed(reference)[0][:killed_at], "a prefix of the same decisions"
    runs = [d for name, d in documents.items() if name.startswith("run ")]
    assert runs, "some runs made it before the kill"
    assert all(d["evidence"] for d in runs), "no run recorded without its evidence's events"

    again = argusic(cli_env, "ingest", str(records), "--json")
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["appended"] == full - killed_at
    assert report["ledger_size"] == full

    assert observed(ledger) == observed(reference)
    resumed = argusic(cli_env, "ledger", "verify", "--json")
    assert resumed.returncode == 0, resumed.stdout
    assert json.loads(resumed.stdout)["ok"] is True
