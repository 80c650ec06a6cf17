"""Single-use sandboxes on a Docker engine, through the docker SDK (methodology section 7,
point 1): one container per run attempt, uniquely named and labelled, no published ports, the
network the configuration says, `init` as PID 1 with a sleep bounded by the run's deadline (so
the container dies on its own), memory/CPU/pids limits, `no-new-privileges`, capabilities
dropped, the host's GPUs only for a run that needs one; removed with its volumes. Every call
to the engine is bounded by `timeout` seconds and every failure is a `SandboxError`.

The agent's command runs by `exec` in a pseudo-terminal; `AgentSession.read` gives its output
as it comes (a thread of the orchestrator only reads bytes: no agent code runs in it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import socket
import tarfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import docker
import docker.errors
import docker.types
import requests

from domain.errors import SetupError
from domain.runner.naming import LABEL_RUN, SANDBOX_PREFIX
from domain.runner.sandbox import SCREEN_FOLDER, SandboxSpec

PROJECT_DIR = "/argusic/project"
SCREEN = "1280x800x24"
DISPLAY_START_SECONDS = 15
T = TypeVar("T")


class SandboxError(SetupError):
    """The engine refused, failed or did not answer in time."""


class SandboxGone(SandboxError):
    """The container is not there (removed from outside, or never made)."""


class RemovalInProgress(SandboxError):
    """Another caller is removing the container (the engine answers 409)."""


@dataclass(frozen=True)
class ContainerState:
    running: bool
    exit_code: int | None
    oom_killed: bool
    status: str


@dataclass(frozen=True)
class OwnedSandbox:
    name: str
    id: str
    labels: dict[str, str]


def _bounded(what: str, call: Callable[[], T]) -> T:
    try:
        return call()
    except docker.errors.NotFound as e:
        raise SandboxGone(f"{what}: {e.explanation or 'not found'}") from None
    except docker.errors.APIError as e:
        if e.status_code == 409 and "already in progress" in str(e.explanation):
            raise RemovalInProgress(f"{what}: {e.explanation}") from None
        raise SandboxError(f"{what}: {e.explanation or e}") from None
    except (requests.exceptions.Timeout, TimeoutError):
        raise SandboxError(f"{what}: the Docker engine did not answer in time") from None
    except (requests.exceptions.RequestException, docker.errors.DockerException, OSError) as e:
        raise SandboxError(f"{what}: {type(e).__name__}: {e}") from None


def _pid1_command(spec: SandboxSpec) -> list[str]:
    """PID 1's work: sleep until the deadline, so the container dies on its own; for a desktop
    run, with the virtual display (Xvfb, in the image) started first."""
    if spec.display is None:
        return ["sleep", str(spec.pid1_seconds)]
    xvfb = f"Xvfb {spec.display} -screen 0 {SCREEN} -nolisten tcp -fbdir {SCREEN_FOLDER}"
    start = f"mkdir -p {SCREEN_FOLDER} && {xvfb} >/tmp/xvfb.log 2>&1"
    return ["sh", "-c", f"({start}) & exec sleep {spec.pid1_seconds}"]


def all_gpus() -> docker.types.DeviceRequest:
    """Every GPU of the host, as `docker run --gpus all` asks for them."""
    return docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])


def container_options(spec: SandboxSpec) -> dict[str, Any]:
    """What the engine is asked to make for `spec` (the image aside): confined, limited, and
    given every GPU of the host only when the run needs one (section 6a; `docker run --gpus
    all`), which an engine without a GPU refuses when the container starts."""
    limits = spec.limits
    return {
        "command": _pid1_command(spec),
        "name": spec.name,
        "labels": spec.labels,
        "environment": spec.environment,
        "working_dir": PROJECT_DIR,
        "init": True,
        "network_mode": limits.network,
        "mem_limit": limits.memory_bytes,
        "memswap_limit": limits.memory_bytes,
        "nano_cpus": limits.nano_cpus,
        "pids_limit": limits.pids,
        "cap_drop": ["ALL"],
        "cap_add": limits.capabilities or None,
        "security_opt": ["no-new-privileges"],
        "hostname": "sandbox",
        "log_config": {"type": "none"},
        "device_requests": [all_gpus()] if limits.gpu else None,
    }


class AgentSession:
    """The agent's exec in its pseudo-terminal: read its output until it ends, then its exit
    code. `interrupt()` (from another thread) makes a blocked `read` return."""

    def __init__(self, api: docker.APIClient, exec_id: str, response: Any) -> None:
        self._api = api
        self.exec_id = exec_id
        self._response = response
        self._stream = response.raw._fp.fp  # the buffered reader the HTTP headers came through
        self._socket: socket.socket = self._stream.raw._sock
        self._socket.settimeout(None)  # the reader waits for output; the deadline is elsewhere

    def read(self, size: int = 65536) -> bytes:
        """The next output (b"" when the session ended or was interrupted)."""
        try:
            return bytes(self._stream.read1(size))
        except (OSError, ValueError):
            return b""

    def chunks(self) -> Iterator[bytes]:
        while chunk := self.read():
            yield chunk

    def interrupt(self) -> None:
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.interrupt()
        self._response.close()

    def exit_code(self) -> int | None:
        """The exec's exit code once it ended; None while it runs or when nobody knows."""
        info = _bounded("exec inspect", lambda: self._api.exec_inspect(self.exec_id))
        return None if info.get("Running") else info.get("ExitCode")


class DockerSandboxes:
    """Sandboxes on the engine at `base_url` (default: the environment's, DOCKER_HOST)."""

    def __init__(self, base_url: str | None = None, timeout: float = 60) -> None:
        self.timeout = timeout
        self.client = _bounded(
            "connect",
            lambda: (
                docker.DockerClient(base_url=base_url, timeout=timeout)
                if base_url
                else docker.from_env(timeout=timeout)
            ),
        )
        self.api: docker.APIClient = self.client.api

    def close(self) -> None:
        self.client.close()

    def image_digest(self, image: str) -> str:
        """The image's content digest (its id, `sha256:...`): what the run ran on."""
        return str(_bounded(f"image {image}", lambda: self.client.images.get(image).id))

    def has_image(self, digest: str) -> bool:
        """Whether the engine still holds the image of this content digest."""

        def held() -> bool:
            try:
                self.client.images.get(digest)
            except docker.errors.ImageNotFound:
                return False
            return True

        return bool(_bounded(f"image {digest}", held))

    def engine_version(self) -> str:
        """The engine's version, as it reports it (section 18: the environment published)."""
        return str(_bounded("version", lambda: self.client.version()["Version"]))

    def create(self, spec: SandboxSpec, files: bytes) -> str:
        """Create the container, copy `files` (a tar) into /argusic, start it; its id."""

        def create() -> str:
            container = self.client.containers.create(spec.image, **container_options(spec))
            return str(container.id)

        container_id = _bounded(f"create {spec.name}", create)
        _bounded("copy files", lambda: self.api.put_archive(container_id, "/argusic", files))
        _bounded(f"start {spec.name}", lambda: self.api.start(container_id))
        return container_id

    def wait_display(self, name: str, display: str) -> None:
        """Wait until the sandbox's virtual display accepts clients; a `SandboxError` when it
        does not within `DISPLAY_START_SECONDS` (an image with no display is our fault)."""
        socket_path = f"/tmp/.X11-unix/X{display.lstrip(':')}"
        tries = DISPLAY_START_SECONDS * 10
        probe = (
            f"i=0; until [ -S {socket_path} ]; do"
            f" i=$((i+1)); [ $i -gt {tries} ] && exit 1; sleep 0.1; done"
        )
        result = _bounded(
            f"display in {name}",
            lambda: self.client.containers.get(name).exec_run(["sh", "-c", probe]),
        )
        if result.exit_code != 0:
            raise SandboxError(f"the virtual display {display} did not start in {name}")

    def start_agent(
        self, name: str, command: list[str], environment: dict[str, str]
    ) -> AgentSession:
        """Run the agent's command in a pseudo-terminal in the sandbox (its recording)."""

        def start() -> AgentSession:
            exec_id = self.api.exec_create(
                name, command, tty=True, environment=environment, workdir=PROJECT_DIR
            )["Id"]
            response = self.api._post_json(  # exec_start(socket=True) without losing bytes
                self.api._url("/exec/{0}/start", exec_id),
                headers={"Connection": "Upgrade", "Upgrade": "tcp"},
                data={"Tty": True, "Detach": False},
                stream=True,
            )
            self.api._raise_for_status(response)
            return AgentSession(self.api, exec_id, response)

        session = _bounded(f"exec in {name}", start)
        with contextlib.suppress(docker.errors.APIError, requests.exceptions.RequestException):
            self.api.exec_resize(session.exec_id, height=40, width=120)  # unless already ended
        return session

    def state(self, name: str) -> ContainerState:
        info = _bounded(f"inspect {name}", lambda: self.api.inspect_container(name))["State"]
        return ContainerState(
            running=bool(info.get("Running")),
            exit_code=info.get("ExitCode"),
            oom_killed=bool(info.get("OOMKilled")),
            status=str(info.get("Status")),
        )

    def settled_state(self, name: str, within: float = 2.0) -> ContainerState:
        """The container's state once it stopped changing: a container whose PID 1 just died
        reports `running` for a moment after its sessions ended."""
        deadline = time.monotonic() + within
        state = self.state(name)
        while state.running and time.monotonic() < deadline:
            time.sleep(0.05)
            state = self.state(name)
        if state.running and not state.oom_killed and self._oom_kills(name):
            return dataclasses.replace(state, oom_killed=True)
        return state

    def _oom_kills(self, name: str) -> int:
        """How many processes the kernel killed in the sandbox for memory: the engine flags
        only its PID 1's, so the sandbox's own memory cgroup is asked (v2, else v1)."""
        probe = (
            "cat /sys/fs/cgroup/memory.events 2>/dev/null"
            " || cat /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"
        )
        try:
            result = _bounded(
                f"memory of {name}",
                lambda: self.client.containers.get(name).exec_run(["sh", "-c", probe]),
            )
        except SandboxError:
            return 0  # gone meanwhile: `state` tells
        fields = (line.split() for line in result.output.decode(errors="replace").splitlines())
        counts = [
            int(f[1]) for f in fields if len(f) == 2 and f[0] == "oom_kill" and f[1].isdigit()
        ]
        return sum(counts)

    def read_file(self, name: str, path: str, limit: int = 1 << 20) -> bytes | None:
        """A file the agent wrote (None when it wrote none, or it is over `limit` bytes)."""
        try:
            stream, stat = _bounded(f"read {path}", lambda: self.api.get_archive(name, path))
        except SandboxGone:
            return None
        if stat.get("size", 0) > limit:
            return None
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = next((m for m in tar.getmembers() if m.isfile()), None)
            extracted = member and tar.extractfile(member)
            return extracted.read(limit) if extracted else None

    def kill(self, name: str) -> None:
        """Kill the container (every process in it); a container already gone or stopped is
        what was wanted."""
        try:
            _bounded(f"kill {name}", lambda: self.api.kill(name))
        except SandboxGone:
            return
        except SandboxError as e:
            if "is not running" not in str(e):
                raise

    def remove(self, name: str) -> bool:
        """Remove the container with its anonymous volumes; False when it was already gone, or
        another closer of the run was removing it (then once it is gone)."""
        try:
            _bounded(f"remove {name}", lambda: self.api.remove_container(name, v=True, force=True))
        except SandboxGone:
            return False
        except RemovalInProgress:
            self._gone(name)
            return False
        return True

    def _gone(self, name: str) -> None:
        """Wait, up to `timeout`, for another's removal of a container to end (the engine's
        own wait for the `removed` condition; a container already gone answers at once)."""
        wait = lambda: self.api.wait(name, timeout=self.timeout, condition="removed")  # noqa: E731
        with contextlib.suppress(SandboxGone):
            _bounded(f"wait for the removal of {name}", wait)

    def owned(self) -> list[OwnedSandbox]:
        """Every container a run made: labelled and named as the runner names them."""
        found = _bounded(
            "list", lambda: self.api.containers(all=True, filters={"label": LABEL_RUN})
        )
        return [
            OwnedSandbox(name=name, id=c["Id"], labels=c.get("Labels") or {})
            for c in found
            for name in [c["Names"][0].lstrip("/")]
            if name.startswith(SANDBOX_PREFIX)
        ]
