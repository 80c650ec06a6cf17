"""Fixtures for tests on the real Docker engine and the key stand-in (import what you use).

`make test` sets ARGUSIC_REQUIRE_SERVICES=1: then a missing Docker engine fails, never skips.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from adapters.docker_sandbox import DockerSandboxes, SandboxError
from adapters.keys_stand_in import KeyStandIn
from adapters.sandbox_images import build_images
from tests.conftest import REQUIRE_SERVICES

KEYS_TOKEN = "stand-in-management-token"
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


def host_processes(marker: str) -> list[str]:
    """Processes on the host (sandboxes' included) whose command line holds `marker`."""
    listing = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True)
    return [line for line in listing.stdout.splitlines() if marker in line and "ps -eo" not in line]
