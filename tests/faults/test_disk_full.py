"""The artifact store's disk full (issue 16): a small tmpfs mounted where the evidence goes;
the ingest stops with a clear error, appends nothing and leaves no part of a file behind."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.wiring import Settings
from ledger.ledger import Ledger
from tests.conftest import REQUIRE_SERVICES, argusic
from tests.records import EDITIONS, run, write


@pytest.fixture
def small_disk(settings: Settings) -> Iterator[Path]:
    """ARGUSIC_HOME/artifacts on a 64 KiB tmpfs of its own, unmounted afterwards."""
    if os.geteuid() != 0:
        reason = "mounting a tmpfs needs root (CI runs as root)"
        if REQUIRE_SERVICES:
            pytest.fail(f"{reason} (ARGUSIC_REQUIRE_SERVICES=1: this must run, not skip)")
        pytest.skip(f"SKIPPED LOUDLY: {reason}")
    artifacts = settings.home / "artifacts"
    artifacts.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(artifacts)], check=True)
    try:
        yield artifacts
    finally:
        subprocess.run(["umount", str(artifacts)], check=True)


def stored_files(artifacts: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(artifacts)): p.read_bytes() for p in artifacts.rglob("*") if p.is_file()
    }


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_full_artifact_store_stops_the_ingest_with_nothing_appended_and_no_half_file(
    ledger: Ledger, cli_env: dict[str, str], small_disk: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    records = [*EDITIONS, run("r-small", "octo/p", "agent-a", "100")]
    records.append(run("r-large", "octo/p", "agent-a", "92", day=11, log="large.log"))
    path = write(folder, "runs.jsonl", records)
    (folder / "large.log").write_bytes(b"a line of a long build log\n" * 10_000)  # 270 kB

    result = argusic(cli_env, "ingest", str(path), "--json")

    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error = json.loads(result.stdout)["error"]
    assert f"the artifact store at {small_disk} has no room left" in error
    assert ledger.size() == 0, "nothing appended"
    stored = stored_files(small_disk)
    assert not [name for name in stored if ".incoming-" in name], "no temporary file left"
    for name, content in stored.items():  # what is there is whole: the small run's files
        assert Path(name).name == hashlib.sha256(content).hexdigest()
