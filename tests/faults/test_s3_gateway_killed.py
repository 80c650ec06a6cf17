"""The S3 gateway killed under an ingest (issue 31): the evidence goes to S3-compatible storage
through a gateway of the test's own, SIGKILLed while a large log is being uploaded; the ingest
stops with a clear error and appends nothing, nothing is under the log's content address, and
the ingest run again once a gateway answers records everything, its evidence whole."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from adapters.s3_artifacts import S3ArtifactStore
from tests.conftest import ARGUSIC, argusic
from tests.records import EDITIONS, run, write
from tests.s3_gateway import Gateway

LOG_LINE = b"a line of a long build log, nothing secret in it\n"


def uploading(store: S3ArtifactStore) -> bool:
    """Whether a multipart upload into the store's prefix has begun (seen through the shared
    gateway, on the same filer)."""
    listed = store.client.list_multipart_uploads(Bucket=store.bucket, Prefix=store.prefix)
    return bool(listed.get("Uploads"))


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_ingest_whose_s3_gateway_is_killed_mid_upload_fails_clearly_and_its_rerun_completes(
    cli_env: dict[str, str], s3_env: dict[str, str], s3_store: S3ArtifactStore, own_gateway: Gateway
) -> None:
    env = cli_env | s3_env | {"ARGUSIC_S3_ENDPOINT": own_gateway.endpoint}
    assert argusic(env, "init").returncode == 0
    folder = Path(env["ARGUSIC_HOME"]).parent / "records"
    folder.mkdir()
    records = [*EDITIONS, run("r-small", "octo/p", "agent-a", "100")]
    records.append(run("r-large", "octo/p", "agent-a", "92", day=11, log="large.log"))
    path = write(folder, "runs.jsonl", records)
    large = LOG_LINE * (48 * 2**20 // len(LOG_LINE))  # 48 MB: six parts of 8 MB
    (folder / "large.log").write_bytes(large)

    ingest = subprocess.Popen(
        [ARGUSIC, "ingest", str(path), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while not uploading(s3_store) and ingest.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    own_gateway.kill()
    out, err = ingest.communicate(timeout=240)

    assert ingest.returncode == 2, (out, err)
    assert "Traceback" not in err
    error = json.loads(out)["error"]
    assert "nothing was stored under a content address" in error
    assert "run again once the gateway answers" in error
    checkpoint = json.loads(argusic(env, "ledger", "checkpoint", "--json").stdout)
    assert checkpoint["size"] == 0, "nothing appended"
    sha256 = hashlib.sha256(large).hexdigest()
    with pytest.raises(FileNotFoundError):
        s3_store.read(sha256)

    own_gateway.start()
    rerun = argusic(env, "ingest", str(path), "--json")
    assert rerun.returncode == 0, rerun.stderr
    verified = json.loads(argusic(env, "ledger", "verify", "--evidence", "--json").stdout)
    assert verified["ok"] is True
    assert b"".join(s3_store.read(sha256)) == large
