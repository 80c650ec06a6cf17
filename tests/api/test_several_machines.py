"""Issue 31, deliverable 5: the several-machine setup on one machine. Two runner workers with
homes of their own (no shared disk) write to the PostgreSQL primary and store their evidence on
the S3 gateway; an operator publishes on the primary; a reader started `--read-only` on the hot
standby, with the ledger's public key alone, serves the run pages and the evidence the workers
stored, as of the approved position, once the standby has replayed it."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from adapters.keys_stand_in import KeyStandIn
from adapters.s3_artifacts import S3ArtifactStore
from api.wiring import Settings, init
from domain.events import RunAborted
from ledger.ledger import Ledger
from tests.conftest import PRIMARY_URL, S3_CREDENTIALS, STANDBY_URL
from tests.publishing import publish
from tests.runner_fixtures import Rig
from tests.s3_gateway import Gateway
from tests.servers import ARGUSIC, serving

pytestmark = pytest.mark.slow

RUNS = {"w1": "r-first-machine", "w2": "r-second-machine"}


def caught_up(address: str, approved: int, seconds: float = 60) -> None:
    """Wait out the replication lag: the reader's approved position reaches `approved`."""
    deadline = time.monotonic() + seconds
    while (size := httpx.get(f"{address}/healthz", timeout=5).json()["size"]) < approved:
        assert time.monotonic() < deadline, f"the standby stayed at {size} < {approved}"
        time.sleep(0.2)


def test_workers_on_two_machines_and_a_reader_on_the_standby(
    images: dict[str, str],
    stand_in: KeyStandIn,
    replicated_schema: str,
    s3_env: dict[str, str],
    tmp_path: Path,
) -> None:
    primary = f"{PRIMARY_URL}?schema={replicated_schema}"
    operator = Settings(primary, tmp_path / "operator", "json")
    ledger, _ = init(operator)  # the primary's ledger key is made here, once
    rig = Rig(operator, ledger, stand_in, tmp_path)
    for worker, run_id in RUNS.items():
        home = tmp_path / worker  # each writer host gets a copy of the ledger's signing key
        (home / "keys").mkdir(parents=True)
        shutil.copy(operator.key_path, home / "keys" / "ledger.key")
        rig.schedule("installs-and-runs", run_id)
        worked = subprocess.run(
            [ARGUSIC, "worker", "--once", "--worker-id", worker, "--json"],
            env={
                **os.environ,
                **rig.env,
                **s3_env,
                "ARGUSIC_DATABASE_URL": primary,
                "ARGUSIC_HOME": str(home),
            },
            capture_output=True,
            timeout=600,
            check=False,
        )
        assert worked.returncode == 0, worked.stderr
        executed = json.loads(worked.stdout)["executed"]
        assert executed == {run_id: "exited"}, (executed, rig.events(run_id), worked.stderr)
        assert rig.recorded(run_id) is not None, (rig.events(run_id), worked.stderr)
        assert not (home / "artifacts").exists()  # nothing kept on the worker's own disk
    approved = publish(ledger, operator.home)
    recorded = {run_id: rig.recorded(run_id) for run_id in RUNS.values()}
    public_key = tmp_path / "ledger.pub"
    public_key.write_text(str(ledger.recorder.sealer.verifier) + "\n")
    reader_home = tmp_path / "reader"
    reader = {
        **os.environ,
        **s3_env,
        "ARGUSIC_DATABASE_URL": f"{STANDBY_URL}?schema={replicated_schema}",
        "ARGUSIC_HOME": str(reader_home),
        "ARGUSIC_LEDGER_PUBLIC_KEY": str(public_key),
    }
    with serving(reader, tmp_path / "reader.log", "--read-only") as address:
        caught_up(address, approved)
        for run_id, run in recorded.items():
            assert run is not None, run_id
            assert run.evidence.cast is not None, run_id
            document = httpx.get(f"{address}/runs/{run_id}", timeout=30)
            assert document.status_code == 200, document.text
            assert document.json()["as_of"] == approved
            cast = httpx.get(f"{address}/runs/{run_id}/evidence/cast", timeout=30)
            assert cast.status_code == 200, cast.text
            assert hashlib.sha256(cast.content).hexdigest() == run.evidence.cast.sha256
            page = httpx.get(f"{address}/runs/{run_id}", headers={"Accept": "text/html"})
            assert run_id in page.text
        refused = httpx.post(f"{address}/operator/actions", json={}, timeout=30)
        assert refused.status_code == 405
    assert not reader_home.exists()  # no signing key made, no evidence kept, nothing written


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_worker_whose_s3_gateway_is_down_aborts_the_run_and_its_rerun_is_recorded_whole(  # noqa: PLR0917 (fixtures)
    images: dict[str, str],
    stand_in: KeyStandIn,
    settings: Settings,
    ledger: Ledger,
    s3_env: dict[str, str],
    s3_store: S3ArtifactStore,
    own_gateway: Gateway,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run that cannot store its evidence is aborted naming the store (section 11: an
    aborted run is run again), nothing of it is half-stored, and once the gateway answers the
    worker's next round runs it again and records it whole."""
    for name, value in S3_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    on_s3 = dataclasses.replace(
        settings, artifacts_url=s3_env["ARGUSIC_ARTIFACTS_URL"], s3_endpoint=own_gateway.endpoint
    )
    rig = Rig(on_s3, ledger, stand_in, tmp_path)
    try:
        rig.schedule("installs-and-runs", "r-gateway-down")
        own_gateway.kill()
        assert rig.work().executed == {"r-gateway-down": "aborted"}
        aborted = rig.state("r-gateway-down").ending
        assert isinstance(aborted, RunAborted)
        assert "S3Unavailable: the S3 store" in aborted.reason
        assert "nothing was stored under a content address; run again once" in aborted.reason
        assert not stored_keys(s3_store)
        own_gateway.start()
        clock = rig.runner.clock  # the rerun waits its delay (section 11): an hour on
        rig.runner.clock = lambda: clock() + timedelta(hours=1)
        assert rig.work().executed == {"r-gateway-down~r2": "exited"}
    finally:
        rig.close()
    recorded = rig.recorded("r-gateway-down~r2")
    assert recorded is not None
    assert recorded.evidence.cast is not None
    cast = b"".join(s3_store.read(recorded.evidence.cast.sha256))
    assert hashlib.sha256(cast).hexdigest() == recorded.evidence.cast.sha256


def stored_keys(store: S3ArtifactStore) -> list[str]:
    listed = store.client.list_objects_v2(Bucket=store.bucket, Prefix=store.prefix)
    return [item["Key"] for item in listed.get("Contents", [])]
