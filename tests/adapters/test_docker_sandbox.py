"""The sandbox on the real Docker engine: limits, labels, files, the agent's pseudo-terminal,
its own bounded PID 1, every process dying with it, removal, and a stalled engine."""

from __future__ import annotations

import io
import os
import socket
import tarfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from adapters.docker_sandbox import DockerSandboxes, SandboxError
from adapters.recording import SessionRecorder
from adapters.sandbox_images import BASELINE_IMAGE, SANDBOX_IMAGE
from domain.events import SandboxLimits
from domain.runner.sandbox import SandboxSpec
from tests.runner_fixtures import host_processes, require_docker, until

LIMITS = SandboxLimits(
    memory_bytes=128 << 20, nano_cpus=500_000_000, pids=128, network="none", capabilities=[]
)


def files(**entries: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, text in entries.items():
            data = text.encode()
            info = tarfile.TarInfo(name.replace("__", "/"))
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def spec(pid1: int = 60, image: str = SANDBOX_IMAGE) -> SandboxSpec:
    run = f"t-{uuid.uuid4().hex[:8]}"
    return SandboxSpec(
        name=f"argusic-run-{run}-c1-{uuid.uuid4().hex[:6]}",
        image=image,
        labels={"argusic.run": run, "argusic.deadline": "2030-01-01T00:00:00Z"},
        limits=LIMITS,
        pid1_seconds=pid1,
        environment={"TZ": "UTC", "LANG": "C.UTF-8"},
    )


@pytest.fixture
def made(sandboxes: DockerSandboxes) -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        sandboxes.remove(name)


def create(sandboxes: DockerSandboxes, made: list[str], s: SandboxSpec, tar: bytes) -> str:
    made.append(s.name)
    return sandboxes.create(s, tar)


def test_the_sandbox_is_single_use_and_confined(
    sandboxes: DockerSandboxes, made: list[str]
) -> None:
    s = spec()
    create(sandboxes, made, s, files(project__README="hi\n", **{"instructions.md": "do\n"}))
    info = sandboxes.api.inspect_container(s.name)
    host = info["HostConfig"]
    assert host["Init"] is True
    assert host["NetworkMode"] == "none"
    assert host["CapDrop"] == ["ALL"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert not host.get("PortBindings")
    assert info["Config"].get("ExposedPorts") is None
    assert (host["Memory"], host["NanoCpus"], host["PidsLimit"]) == (128 << 20, 500_000_000, 128)
    assert info["Config"]["Labels"]["argusic.run"] == s.labels["argusic.run"]
    assert info["Config"]["Cmd"] == ["sleep", "60"]
    session = sandboxes.start_agent(
        s.name, ["sh", "-c", "pwd; ls -a -1; echo $TZ $LANG; cat ../instructions.md"], {}
    )
    output = b"".join(session.chunks())
    assert output.split(b"\r\n")[:5] == [
        b"/argusic/project",
        b".",
        b"..",
        b"README",
        b"UTC C.UTF-8",
    ]
    assert session.exit_code() == 0
    assert [o.name for o in sandboxes.owned() if o.name == s.name] == [s.name]


def test_the_agent_runs_in_a_pseudo_terminal_recorded_from_the_host(
    sandboxes: DockerSandboxes, made: list[str], tmp_path: Path
) -> None:
    s = spec()
    create(sandboxes, made, s, files(project__x="x"))
    session = sandboxes.start_agent(
        s.name,
        [
            "sh",
            "-c",
            "[ -t 1 ] && echo tty; printf '\\342\\230'; sleep 0.3; printf '\\203 done\\n'; exit 7",
        ],
        {"GREETING": "hi"},
    )
    recorder = SessionRecorder(tmp_path / "c", tmp_path / "l", title="r", timestamp=1)
    for chunk in session.chunks():
        recorder.write(chunk)
    recorder.close()
    assert session.exit_code() == 7
    log = (tmp_path / "l").read_bytes()
    assert log == b"tty\r\n\xe2\x98\x83 done\r\n"
    assert (
        b"\\u2603" in (tmp_path / "c").read_bytes() or "☃".encode() in (tmp_path / "c").read_bytes()
    )


def test_the_agent_report_is_read_back(sandboxes: DockerSandboxes, made: list[str]) -> None:
    s = spec()
    create(sandboxes, made, s, files(project__x="x"))
    assert sandboxes.read_file(s.name, "/argusic/report.json") is None
    session = sandboxes.start_agent(
        s.name, ["sh", "-c", "echo '{\"a\": 1}' > /argusic/report.json"], {}
    )
    list(session.chunks())
    assert sandboxes.read_file(s.name, "/argusic/report.json") == b'{"a": 1}\n'


def test_pid1_is_bounded_so_the_sandbox_dies_on_its_own(
    sandboxes: DockerSandboxes, made: list[str]
) -> None:
    s = spec(pid1=2)
    create(sandboxes, made, s, files(project__x="x"))
    session = sandboxes.start_agent(s.name, ["sh", "-c", "sleep 600"], {})
    began = time.monotonic()
    assert b"".join(session.chunks()) == b""  # the session ends when the container does
    assert time.monotonic() - began < 20
    assert not sandboxes.settled_state(s.name).running


def test_killing_the_sandbox_kills_grandchildren_and_daemons(
    sandboxes: DockerSandboxes, made: list[str]
) -> None:
    marker = f"marker-{uuid.uuid4().hex[:8]}"
    s = spec()
    create(sandboxes, made, s, files(project__x="x"))
    daemon = f"setsid sh -c 'while :; do sleep 1; done # {marker}'"
    script = f"(sleep 1000 & sleep 1000) & {daemon} & echo up; wait"
    session = sandboxes.start_agent(s.name, ["sh", "-c", script], {})
    assert session.read().startswith(b"up")
    assert until(lambda: bool(host_processes(marker)), 10)
    sandboxes.kill(s.name)
    assert b"".join(session.chunks()) == b""
    assert host_processes(marker) == []
    assert not sandboxes.settled_state(s.name).running
    sandboxes.kill(s.name)  # already dead: nothing to do
    volumes = len(sandboxes.api.volumes()["Volumes"] or [])
    assert sandboxes.remove(s.name) is True
    assert sandboxes.remove(s.name) is False
    assert len(sandboxes.api.volumes()["Volumes"] or []) <= volumes
    with pytest.raises(SandboxError):
        sandboxes.state(s.name)


def test_a_taken_name_is_refused(sandboxes: DockerSandboxes, made: list[str]) -> None:
    """Reused names answer 409: which is why every attempt gets its own."""
    s = spec()
    create(sandboxes, made, s, files(project__x="x"))
    with pytest.raises(SandboxError, match=r"Conflict|already in use"):
        sandboxes.create(s, files(project__x="x"))


def removed_at_once(sandboxes: DockerSandboxes, name: str) -> list[bool | SandboxError]:
    """Two removals of one container started together: what each returned, or raised."""
    together = threading.Barrier(2)

    def remove() -> bool | SandboxError:
        together.wait()
        try:
            return sandboxes.remove(name)
        except SandboxError as e:
            return e

    with ThreadPoolExecutor(2) as closers:
        return list(closers.map(lambda _: remove(), range(2)))


def test_two_closers_removing_one_sandbox_both_see_it_gone(
    sandboxes: DockerSandboxes, made: list[str]
) -> None:
    """A cancel and the run's worker close a run at once: the engine answers the second
    removal 409 ("already in progress"), which is no failure; each returns once it is gone."""
    for _ in range(5):
        s = spec()
        create(sandboxes, made, s, files(project__x="x"))
        removed = removed_at_once(sandboxes, s.name)
        assert sorted(removed, key=str) == [False, True], removed
        assert s.name not in [o.name for o in sandboxes.owned()]


def test_the_baseline_image_has_its_agent(
    images: dict[str, str], sandboxes: DockerSandboxes
) -> None:
    assert sandboxes.image_digest(BASELINE_IMAGE) == images[BASELINE_IMAGE]
    assert images[BASELINE_IMAGE].startswith("sha256:")
    assert images[BASELINE_IMAGE] != images[SANDBOX_IMAGE]


class StallingProxy:
    """A Unix socket in front of the real engine that forwards, or swallows when stalled."""

    def __init__(self, path: Path, stall_on: bytes | None = None) -> None:
        self.path = str(path)
        self.stalled = False
        self.stall_on = stall_on
        self.held: list[socket.socket] = []
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(self.path)
        self.server.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        if self.stalled:
            self.held.append(client)  # never answered
            return
        upstream = socket.socket(socket.AF_UNIX)
        upstream.connect("/var/run/docker.sock")
        threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _stalls(self, data: bytes) -> bool:
        """A request (on a new or a kept-alive connection) the proxy must swallow."""
        if self.stalled:
            return True
        line = data.split(b"\r\n", 1)[0]
        return self.stall_on is not None and self.stall_on in line

    def _pipe(self, a: socket.socket, b: socket.socket, requests: bool) -> None:
        try:
            while data := a.recv(65536):
                if requests and self._stalls(data):
                    self.held.append(a)
                    return
                b.sendall(data)
        except OSError:
            pass
        finally:
            if not (requests and a in self.held):
                b.close()

    def close(self) -> None:
        self.server.close()
        os.unlink(self.path)


def test_a_stalled_engine_fails_closed_within_its_bound(
    images: dict[str, str], tmp_path: Path
) -> None:
    require_docker()
    proxy = StallingProxy(tmp_path / "d.sock")
    stalled = DockerSandboxes(base_url=f"unix://{proxy.path}", timeout=2)
    try:
        assert stalled.image_digest(SANDBOX_IMAGE) == images[SANDBOX_IMAGE]  # forwarding
        proxy.stalled = True
        stalled.client.api.close()  # drop pooled connections: the next call opens a new one
        began = time.monotonic()
        with pytest.raises(SandboxError, match="in time"):
            stalled.create(spec(), files(project__x="x"))
        assert time.monotonic() - began < 10
    finally:
        proxy.close()


def test_nothing_is_installed_in_the_image_to_record() -> None:
    """Harbor installs asciinema at run time (and hangs offline): our recording is made on the
    host, so the image is busybox, its applets and the agent, nothing else."""
    import tarfile as tar_module

    from adapters.sandbox_images import build_context

    with tar_module.open(fileobj=io.BytesIO(build_context(b"#!/bin/sh\n"))) as tar:
        files = sorted(m.name for m in tar.getmembers() if m.isfile())
    assert files == [
        "Dockerfile",
        "rootfs/agent/run",
        "rootfs/bin/busybox",
        "rootfs/etc/group",
        "rootfs/etc/passwd",
    ]
