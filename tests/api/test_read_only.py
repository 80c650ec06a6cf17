"""`argusic serve --read-only` (issue 31, deliverable 1): a reader holds the ledger's public key
alone, never the signing key; it stores nothing (its read models are folded on in memory from
the stored one), answers operator actions with 405, and serves from a database that refuses
every write, as a hot standby does. `--workers N` runs N server processes."""

from __future__ import annotations

import gc
import json
import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from litestar.testing import TestClient
from psycopg import sql

from api.http import create_app
from api.wiring import Argusic, ConfigurationError, Settings, open_reader, settle
from ledger.ledger import Ledger, NewEvent
from ledger.note import Signer
from ledger.sealing import ReadOnlyLedger
from tests.api.world import World
from tests.conftest import PG_URL, argusic, edition
from tests.publishing import publish
from tests.records import run
from tests.servers import TCP_ESTABLISHED, server_process, serving, tcp_sockets


def public_key_file(ledger: Ledger, folder: Path) -> Path:
    """The ledger's public key in a file, as an operator copies it to a reader's machine."""
    path = folder / "ledger.pub"
    path.write_text(str(ledger.recorder.sealer.verifier) + "\n")
    return path


def reader_settings(settings: Settings, folder: Path, ledger: Ledger) -> Settings:
    """A reader's settings: an empty home of its own (no signing key), the public key's file."""
    return Settings(
        database_url=settings.database_url,
        home=folder / "reader-home",
        log_format="json",
        public_key=public_key_file(ledger, folder),
    )


def stored(ledger: Ledger) -> dict[str, int]:
    """The position each stored read model is at."""
    rows = ledger.recorder._fetchall("SELECT name, position FROM projection_state")
    return dict(rows)


def test_a_reader_answers_as_of_the_approval_stores_nothing_and_takes_no_action(
    world: World, settings: Settings, tmp_path: Path
) -> None:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    approved = publish(world.ledger, world.folder / "home")
    world.ingest([run("r-1", "octo/p", "agent-a", "92", day=11)])
    reading = reader_settings(settings, tmp_path, world.ledger)
    reader = open_reader(reading)
    assert not reader.writes
    with TestClient(app=create_app(Argusic(reading, reader))) as client:
        assert client.get("/healthz").json() == {"status": "ok", "size": approved}
        assert client.get("/runs/r-0").status_code == 200
        assert client.get("/runs/r-1").status_code == 404  # recorded after the approval
        assert client.get("/data/index.json").status_code == 200
        refused = client.post("/operator/actions", json={})
        assert refused.status_code == 405
        assert "only reads" in refused.json()["detail"]
        later = publish(world.ledger, world.folder / "home")
        before = stored(world.ledger)
        assert before["methodology.v12"] < world.ledger.size()  # the approval since
        assert client.get("/runs/r-1").json()["as_of"] == later
        assert client.get("/status.json").status_code == 200
    assert stored(world.ledger) == before
    assert not (tmp_path / "reader-home").exists()  # no key made, nothing written
    with pytest.raises(ReadOnlyLedger, match="public key alone"):
        reader.append([NewEvent(edition(99), 1)])


def test_a_reader_starts_with_the_approved_positions_state_alone(
    world: World, settings: Settings, tmp_path: Path
) -> None:
    """A reader's server start (`settle`) folds the stored model on to the latest approved
    position and no further: which position that is, it learns from the authority events
    alone, so the head's state past it is never made."""
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    approved = publish(world.ledger, world.folder / "home")
    world.ingest([run("r-1", "octo/p", "agent-a", "92", day=11)])
    assert world.ledger.size() > approved
    reading = reader_settings(settings, tmp_path, world.ledger)
    argusic = Argusic(reading, open_reader(reading))
    try:
        settle(argusic)
    finally:
        gc.unfreeze()  # what the server's start holds for good, the test's process need not
    assert argusic.public.reader.kept() == [], "the approved state is the latest, no other made"
    assert argusic.public.leaderboard("2026-09").as_of == approved  # type: ignore[arg-type]


def test_a_reader_needs_the_public_key_of_this_ledger(
    ledger: Ledger, settings: Settings, tmp_path: Path
) -> None:
    reading = reader_settings(settings, tmp_path, ledger)
    with pytest.raises(ConfigurationError, match="ARGUSIC_LEDGER_PUBLIC_KEY is not set"):
        open_reader(Settings(settings.database_url, tmp_path, "json"))
    reading.public_key.write_text("not a key\n")  # type: ignore[union-attr]
    with pytest.raises(ConfigurationError, match="ARGUSIC_LEDGER_PUBLIC_KEY"):
        open_reader(reading)
    stranger = Signer.generate("argusic.local/ledger-other").verifier  # another ledger's
    reading.public_key.write_text(str(stranger) + "\n")  # type: ignore[union-attr]
    with pytest.raises(ConfigurationError, match="not this ledger's"):
        open_reader(reading)


@pytest.fixture
def read_only_role(pg_schema: str) -> Iterator[str]:
    """A PostgreSQL role that may read the schema and write nothing, as a hot standby's
    sessions: its URL (dropped afterwards)."""
    role = f"reader_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(
                sql.Identifier(role)
            )
        )
    parts = urlsplit(PG_URL)
    netloc = f"{role}@{parts.hostname}:{parts.port or 5432}"
    yield urlunsplit((parts.scheme, netloc, parts.path, f"schema={pg_schema}", ""))
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def grant_reads(schema: str, role_url: str) -> None:
    role = urlsplit(role_url).username or ""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for grant in (
            "GRANT USAGE ON SCHEMA {} TO {}",
            "GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}",
        ):
            conn.execute(sql.SQL(grant).format(sql.Identifier(schema), sql.Identifier(role)))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_serve_read_only_with_workers_on_a_database_refusing_writes_with_no_signing_key(
    world: World,
    settings: Settings,
    tmp_path: Path,
    pg_schema: str,
    read_only_role: str,
) -> None:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    approved = publish(world.ledger, world.folder / "home")
    grant_reads(pg_schema, read_only_role)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARGUSIC_")},
        "ARGUSIC_DATABASE_URL": read_only_role,
        "ARGUSIC_HOME": str(tmp_path / "reader-home"),
        "ARGUSIC_LEDGER_PUBLIC_KEY": str(public_key_file(world.ledger, tmp_path)),
    }
    without_key = argusic({**env, "ARGUSIC_LEDGER_PUBLIC_KEY": ""}, "serve", "--read-only")
    assert without_key.returncode == 2
    assert "ARGUSIC_LEDGER_PUBLIC_KEY is not set" in without_key.stderr
    with serving(env, tmp_path / "reader.log", "--read-only", "--workers", "2") as address:
        for _ in range(8):  # whichever process answers
            assert httpx.get(f"{address}/healthz").json() == {"status": "ok", "size": approved}
            assert httpx.get(f"{address}/runs/r-0").status_code == 200
            assert httpx.post(f"{address}/operator/actions", json={}).status_code == 405
        world.ingest([run("r-1", "octo/p", "agent-a", "92", day=11)])
        later = publish(world.ledger, world.folder / "home")
        for _ in range(8):
            assert httpx.get(f"{address}/runs/r-1").json()["as_of"] == later
    log = (tmp_path / "reader.log").read_text()
    assert "read-only transaction" not in log, log
    assert log.count("Started server process") == 2, log
    assert not (tmp_path / "reader-home").exists()


def test_serve_with_workers_on_the_primary_takes_actions_and_logs_json_lines(
    ledger: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Actions are judged on a primary; every line the server logs, uvicorn's included, is one
    JSON object (the house's log format off a terminal), naming the logger it came from."""
    with serving(cli_env, tmp_path / "server.log", "--workers", "2") as address:
        for _ in range(4):
            assert httpx.get(f"{address}/healthz").status_code == 200
            refused = httpx.post(f"{address}/operator/actions", json={})
            assert refused.status_code == 400, refused.text  # judged, not refused as a reader
    lines = [json.loads(line) for line in (tmp_path / "server.log").read_text().splitlines()]
    started = [line for line in lines if line["event"].startswith("Started server process")]
    assert [line["logger"] for line in started] == ["uvicorn.error"] * 2
    accessed = [line["event"] for line in lines if line.get("logger") == "uvicorn.access"]
    assert sum('"POST /operator/actions HTTP/1.1" 400' in event for event in accessed) == 4


def established_on(pid: int, port: int) -> int:
    """How many established TCP connections to `port` the process `pid` holds (Linux's /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd)
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return sum(state == TCP_ESTABLISHED and inode in inodes for state, inode in tcp_sockets(port))


def worker_pids(port: int) -> list[int]:
    """The processes `argusic serve --workers` started for `port`, each serving one socket."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, NotADirectoryError, PermissionError, ProcessLookupError):
            continue
        if b"--fd" in command and str(port).encode() in command:
            found.append(int(entry.name))
    return found


def test_workers_share_a_burst_of_connections_and_stop_together(
    ledger: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Each worker accepts on a socket of its own, so the kernel spreads 16 connections opened at
    once over both (all 16 on one: 2 in 65,536); a worker's death stops the server, which exits
    as a shell reports a killed process."""
    with server_process(cli_env, tmp_path / "server.log", "--workers", "2") as (server, address):
        port = urlsplit(address).port
        assert port is not None
        clients = [httpx.Client(base_url=address) for _ in range(16)]
        for client in clients:  # each connection opened, then kept
            assert client.get("/healthz").status_code == 200
        workers = worker_pids(port)
        assert len(workers) == 2, workers
        held = [established_on(pid, port) for pid in workers]
        for client in clients:
            client.close()
        assert sum(held) == 16, held
        assert min(held) > 0, f"one worker took every connection: {held}"
        os.kill(workers[0], signal.SIGKILL)
        assert server.wait(timeout=30) == 128 + signal.SIGKILL
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()], "a worker was left"
