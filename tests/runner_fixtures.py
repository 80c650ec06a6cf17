"""Fixtures for tests on the real Docker engine and the key stand-in (import what you use).

`make test` sets ARGUSIC_REQUIRE_SERVICES=1: then a missing Docker engine fails, never skips.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from adapters.docker_sandbox import DockerSandboxes, SandboxError
from adapters.keys_stand_in import KeyStandIn
from adapters.sandbox_images import BASELINE_IMAGE, build_images
from domain.events import (
    Agent,
    AgentRuntime,
    EditionDrafted,
    Project,
    RunRecorded,
    RunScheduled,
    streams,
)
from domain.runner.config import SandboxPolicy
from ledger.ledger import Ledger, NewEvent
from tests.conftest import REQUIRE_SERVICES

KEYS_TOKEN = "stand-in-management-token"
PRODUCTION = SandboxPolicy()
"""Production's bounds on the engine and the key API, which the rig keeps unless a test of a
bound sets its own."""
FIXTURES = Path(__file__).resolve().parents[1] / "scripts" / "fixtures" / "projects"


@cache
def docker_unavailable() -> str | None:
    try:
        DockerSandboxes(timeout=10).client.ping()
    except (SandboxError, Exception) as e:
        return f"the Docker engine is unavailable: {e}"
    return None


def require_docker() -> None:
    reason = docker_unavailable()
    if reason is None:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (ARGUSIC_REQUIRE_SERVICES=1: this must run, not skip)")
    pytest.skip(f"SKIPPED LOUDLY: {reason}; run `make test` to start it")


@pytest.fixture(scope="session")
def images() -> dict[str, str]:
    """The sandbox images, built once per session: tag -> digest."""
    require_docker()
    sandboxes = DockerSandboxes(timeout=120)
    try:
        return {image.tag: image.digest for image in build_images(sandboxes)}
    finally:
        sandboxes.close()


@pytest.fixture
def sandboxes(images: dict[str, str]) -> Iterator[DockerSandboxes]:
    client = DockerSandboxes(timeout=30)
    yield client
    client.close()


@pytest.fixture
def stand_in() -> Iterator[KeyStandIn]:
    server = KeyStandIn(KEYS_TOKEN).start()
    yield server
    server.stop()


def fixture_repository(name: str, into: Path) -> tuple[str, str]:
    """A git repository holding one fixture project; (its file URL, its commit)."""
    repo = into / name
    shutil.copytree(FIXTURES / name, repo)

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", name)
    return repo.as_uri(), git("rev-parse", "HEAD")


def until(condition: Callable[[], bool], seconds: float = 20) -> bool:
    """Whether `condition` holds within `seconds`: what another thread or process does takes
    its time, the more on a loaded machine."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def host_processes(marker: str) -> list[str]:
    """Processes on the host (sandboxes' included) whose command line holds `marker`."""
    listing = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True)
    return [line for line in listing.stdout.splitlines() if marker in line and "ps -eo" not in line]


CONFIG = """
[budgets]
standard = {standard}
heavy = 0.1
gpu = 0.1

[keys]
limit_usd = 3
gpu_limit_usd = {gpu_limit}

[sandbox]
network = "none"
grace_seconds = {grace}
concurrency = 2
memory_mb = 256
cpus = 1.0
pids = 256
capabilities = []
docker_timeout_seconds = {docker_timeout}
keys_timeout_seconds = {keys_timeout}
sweep_seconds = {sweep}
"""


def config_text(
    *,
    standard: float,
    grace: float,
    docker_timeout: float = PRODUCTION.docker_timeout_seconds,
    keys_timeout: float = PRODUCTION.keys_timeout_seconds,
    gpu_limit: float = 3,
    sweep: float = 60,
) -> str:
    """An orchestrator configuration for tests (budgets in minutes, shrunk)."""
    return CONFIG.format(
        standard=standard,
        grace=grace,
        docker_timeout=docker_timeout,
        keys_timeout=keys_timeout,
        gpu_limit=gpu_limit,
        sweep=sweep,
    )


class Rig:
    """A ledger, a runner on the real engine with its keys at the stand-in, and helpers. Its
    bounds on the engine and the key API are production's: on a loaded machine a slow answer
    would leave a run's sandbox or key to the sweeper and the run unrecorded. A test of a
    bound sets its own."""

    def __init__(
        self,
        settings: Any,
        ledger: Ledger,
        stand_in: KeyStandIn,
        folder: Path,
        *,
        grace: float = 5,
        docker_timeout: float = PRODUCTION.docker_timeout_seconds,
        keys_timeout: float = PRODUCTION.keys_timeout_seconds,
        gpu_limit: float = 3,
        sweep: float = 60,
    ) -> None:
        from api.wiring import build_runner

        self.settings, self.ledger, self.stand_in, self.folder = settings, ledger, stand_in, folder
        config = folder / "orchestrator.toml"
        config.write_text(
            config_text(
                standard=0.05,
                grace=grace,
                docker_timeout=docker_timeout,
                keys_timeout=keys_timeout,
                gpu_limit=gpu_limit,
                sweep=sweep,
            )
        )
        self.env = {
            "ARGUSIC_ORCHESTRATOR_CONFIG": str(config),
            "ARGUSIC_KEYS_URL": stand_in.url,
            "ARGUSIC_KEYS_TOKEN": KEYS_TOKEN,
        }
        self.runner = build_runner(settings, ledger, self.env)
        self.runner.poll_seconds = 0.2
        if not ledger.stream(streams.edition("1.5")):
            edition = EditionDrafted(version="1.5", drafted=date(2026, 10, 8), summary="v1.5")
            ledger.append([NewEvent(edition, 1)])
        self.repos: dict[str, tuple[str, str]] = {}

    def schedule(
        self,
        fixture: str,
        run_id: str,
        *,
        budget: float = 60,
        key: str = "per_run",
        command: list[str] | None = None,
        edition: str = "1.5",
        desktop_image: str | None = None,
        image: str = BASELINE_IMAGE,
        needs_gpu: bool = False,
    ) -> RunScheduled:
        if fixture not in self.repos:
            self.repos[fixture] = fixture_repository(fixture, self.folder)
        url, commit = self.repos[fixture]
        run = RunScheduled(
            run_id=run_id,
            cycle="2026-10",
            edition=edition,
            project=Project(
                id=f"fixtures/{fixture}",
                source_type="repository",
                pool="public",
                repo=url,
                commit=commit,
                desktop=fixture.startswith("desktop"),
                needs_gpu=needs_gpu,
            ),
            agent=Agent(
                id="agent-base",
                model="scripted",
                model_version="1",
                harness="baseline",
                harness_version="1",
            ),
            runtime=AgentRuntime(
                image=image,
                command=command or ["/agent/run"],
                desktop_image=desktop_image,
            ),
            key=key,  # type: ignore[arg-type]
            attempt="standard",
            tier="gpu" if needs_gpu else "standard",
            budget_seconds=budget,
            grace_seconds=self.runner.config.sandbox.grace_seconds,
            scheduled_at=self.runner.clock(),
        )
        self.runner.log.schedule([run])
        return run

    def work(self, concurrency: int = 2, worker: str = "w1", *, gpu: bool = False) -> Any:
        from api.services.worker import run_worker

        return run_worker(self.runner, worker, concurrency, once=True, gpu=gpu)

    def state(self, run_id: str) -> Any:
        return self.runner.log.load(run_id)

    def events(self, run_id: str) -> list[Any]:
        return [r.event for r in self.ledger.stream(streams.attempt(run_id))]

    def recorded(self, run_id: str) -> RunRecorded | None:
        found = [r.event for r in self.ledger.stream(streams.run(run_id))]
        return found[0] if found else None  # type: ignore[return-value]

    def containers(self) -> list[str]:
        """Containers of this ledger, running or not."""
        return [
            s.name
            for s in self.runner.sandboxes.owned()
            if s.labels.get("argusic.ledger") == self.runner.ledger_tag
        ]

    def live_keys(self) -> list[str]:
        return [k.name for k in self.stand_in.live_keys()]

    def close(self) -> None:
        for name in self.containers():
            self.runner.sandboxes.remove(name)


@pytest.fixture
def rig(
    images: dict[str, str], settings: Any, ledger: Ledger, stand_in: KeyStandIn, tmp_path: Path
) -> Iterator[Rig]:
    made = Rig(settings, ledger, stand_in, tmp_path)
    yield made
    made.close()


@pytest.fixture
def make_rig(
    images: dict[str, str], settings: Any, ledger: Ledger, stand_in: KeyStandIn, tmp_path: Path
) -> Iterator[Callable[..., Rig]]:
    """A rig with its own configuration (a bound, `gpu_limit`, `sweep`), closed after the
    test."""
    made: list[Rig] = []

    def make(**config: float) -> Rig:
        made.append(Rig(settings, ledger, stand_in, tmp_path, **config))
        return made[-1]

    yield make
    for rig in made:
        rig.close()
