"""Real server processes on 127.0.0.1 for tests: a free port, waiting for an answer, stopping
the whole process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ARGUSIC = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "argusic")

TCP_ESTABLISHED, TCP_LISTEN = "01", "0A"
"""A connected socket's and a listening socket's state in Linux's /proc/net/tcp."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer within {seconds}s")


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


@contextmanager
def server_process(
    env: dict[str, str], log: Path | None = None, *options: str, start_seconds: float = 60
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`argusic serve` on a free port of 127.0.0.1 over the ledger `env` names, with `options`
    (`--read-only`, `--workers 2`), its log lines written to `log` if given: the process and its
    address once every worker listens (within `start_seconds`: each folds the read model first),
    stopped at the end unless it ended first."""
    port = free_port()
    with open(log or os.devnull, "ab") as stderr:
        server = subprocess.Popen(
            [ARGUSIC, "serve", "--port", str(port), *options],
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        address = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + start_seconds
        wait_for(f"{address}/healthz", server, start_seconds)
        wait_for_listeners(port, workers_in(options), server, deadline)
        yield server, address
    finally:
        if server.poll() is None:
            stop(server)


def workers_in(options: tuple[str, ...]) -> int:
    return int(options[options.index("--workers") + 1]) if "--workers" in options else 1


def wait_for_listeners(
    port: int, count: int, process: subprocess.Popen[bytes], deadline: float
) -> None:
    """Until `count` sockets listen on `port` (Linux's /proc): one worker answering does not mean
    all do, and until a worker's socket listens the kernel hands every connection to the others."""
    while listeners_on(port) < count:
        assert process.poll() is None, "the server exited"
        if time.monotonic() > deadline:
            pytest.fail(f"fewer than {count} sockets listened on port {port}")
        time.sleep(0.1)


def listeners_on(port: int) -> int:
    return sum(state == TCP_LISTEN for state, _ in tcp_sockets(port))


def tcp_sockets(port: int) -> Iterator[tuple[str, str]]:
    """The IPv4 TCP sockets on local `port` (Linux's /proc/net/tcp): each one's state and inode."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            yield fields[3], fields[9]


@contextmanager
def serving(
    env: dict[str, str], log: Path | None = None, *options: str, start_seconds: float = 60
) -> Iterator[str]:
    """`server_process`'s address."""
    with server_process(env, log, *options, start_seconds=start_seconds) as (_, address):
        yield address
