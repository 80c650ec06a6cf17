"""`argusic serve --workers N`: N server processes on one port, each accepting on a listening
socket of its own (`SO_REUSEPORT`), among which the kernel spreads new connections evenly. With
one socket shared by every process (uvicorn's own workers), whichever process woke first took a
burst of connections alone: in the read bench, about one time in two, all 16 kept-alive
connections reached one of two workers and the second stayed idle (docs/performance.md)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from types import FrameType

POLL_SECONDS = 0.2
"""How often the parent looks whether a worker has ended."""


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` sockets bound to one address, each of its own (`SO_REUSEPORT`); with `port` 0,
    the port the first bind is given, shared by the others. Bound here, before any worker
    starts, so that an address in use stops the server at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def run_workers(command: list[str], sockets: list[socket.socket]) -> int:
    """One `command --fd F` process per socket, each handed its socket alone. All stop together:
    on SIGTERM or SIGINT (exit 0), or when any one ends (its exit code, 128 + the signal that
    killed it: the server's process manager restarts the server whole, as it would one process)."""
    workers = [
        subprocess.Popen([*command, "--fd", str(s.fileno())], pass_fds=(s.fileno(),))
        for s in sockets
    ]
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stopping and all(w.poll() is None for w in workers):
            time.sleep(POLL_SECONDS)
        ended = next((w.returncode for w in workers if w.returncode is not None), None)
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in workers:
            worker.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if stopping or ended is None:
        return 0
    return ended if ended >= 0 else 128 - ended  # killed by a signal: as a shell reports it
