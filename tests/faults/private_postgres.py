"""A PostgreSQL cluster of a test's own, to stop and restart at will: the shared server other
tests use is never touched. Made with `initdb` in a temporary folder and run by `pg_ctl` on a
free port of 127.0.0.1; as root (CI), both run as the `postgres` user, as PostgreSQL demands."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import REQUIRE_SERVICES
from tests.servers import free_port


def _bin_dir() -> Path | None:
    """The newest installed server's programs (Debian keeps them out of PATH)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return None if initdb is None else Path(initdb).parent


class PrivatePostgres:
    """One cluster: started by `start`, its connections cut by `stop` and `restart`."""

    def __init__(self, bin_dir: Path, folder: Path) -> None:
        self.bin_dir, self.folder = bin_dir, folder
        self.data, self.log = folder / "data", folder / "server.log"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*as_postgres, str(self.bin_dir / program), *args],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")

    def _pg_ctl(self, command: str, *args: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", command, "-D", str(self.data), "-l", str(self.log), "-w",
                  "-o", options, *args)  # fmt: skip

    def start(self) -> None:
        self._pg_ctl("start")

    def stop(self) -> None:
        """A fast shutdown: every open connection is cut, open transactions rolled back."""
        self._pg_ctl("stop", "-m", "fast")

    def restart(self) -> None:
        self._pg_ctl("restart", "-m", "fast")

    def kill(self) -> None:
        self._pg_ctl("stop", "-m", "immediate")


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[PrivatePostgres]:
    """A running private cluster for the module's tests, removed afterwards."""
    bin_dir = _bin_dir()
    if bin_dir is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        reason = "no PostgreSQL server programs (initdb, pg_ctl) to make a private cluster"
        if REQUIRE_SERVICES:
            pytest.fail(f"{reason} (ARGUSIC_REQUIRE_SERVICES=1: this must run, not skip)")
        pytest.skip(f"SKIPPED LOUDLY: {reason}")
    folder = Path(tempfile.mkdtemp(prefix="argusic-pg-"))  # not under pytest's root-only tmp
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    cluster = PrivatePostgres(bin_dir, folder)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        if (cluster.data / "postmaster.pid").exists():
            cluster.kill()
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(cluster: PrivatePostgres, name: str) -> str:
    """The URL of a new, empty database on the cluster."""
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"'.encode())
    return cluster.url.rsplit("/", 1)[0] + f"/{name}"
