"""The artifact store on S3-compatible storage, against SeaweedFS's S3 gateway
(scripts/ensure-seaweedfs.sh): content-addressed, written once, streamed both ways in bounded
memory, every read checked, and a gateway killed mid-write leaving nothing under an address."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.s3_artifacts import PART, ArtifactCorrupt, S3ArtifactStore, S3Unavailable
from tests.adapters import s3_memory
from tests.conftest import S3_CREDENTIALS, S3_ENDPOINT, s3_client
from tests.s3_gateway import Gateway, free_port

ROOT = Path(__file__).resolve().parents[2]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stored(store: S3ArtifactStore, sha: str) -> bool:
    listed = store.client.list_objects_v2(Bucket=store.bucket, Prefix=store.key(sha))
    return listed.get("KeyCount", 0) > 0


def test_a_file_is_stored_once_under_its_sha256(
    s3_store: S3ArtifactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"a log line\n" * 1000
    fingerprint = s3_store.put_stream([data[:5000], data[5000:]])
    assert (fingerprint.sha256, fingerprint.bytes) == (sha256(data), len(data))
    key = f"{s3_store.prefix}/sha256/{sha256(data)[:2]}/{sha256(data)}"
    body = s3_store.client.get_object(Bucket=s3_store.bucket, Key=key)["Body"].read()
    assert body == data
    assert b"".join(s3_store.read(sha256(data))) == data
    uploads: list[str] = []
    monkeypatch.setattr(s3_store.client, "upload_fileobj", lambda *a, **k: uploads.append(a[2]))
    assert s3_store.put_stream([data]) == fingerprint
    with s3_store.storing() as writer:
        writer.write(data)
    assert (writer.fingerprint, uploads) == (fingerprint, [])


@pytest.mark.parametrize("body", ["same size", "other size"])
def test_a_different_body_under_a_stored_sha256_is_an_integrity_failure(
    s3_store: S3ArtifactStore, body: str
) -> None:
    data = b"the evidence as recorded\n"
    other = data.replace(b"recorded", b"rewritten") if body == "other size" else data.upper()
    key = s3_store.key(sha256(data))
    s3_store.client.put_object(Bucket=s3_store.bucket, Key=key, Body=other)
    with pytest.raises(ArtifactCorrupt, match=key):
        s3_store.put_stream([data])
    with pytest.raises(ArtifactCorrupt, match=f"hash to {sha256(other)}"):
        s3_store.read(sha256(data))  # not one byte of it is given out
    assert s3_store.client.get_object(Bucket=s3_store.bucket, Key=key)["Body"].read() == other


def test_a_missing_file_is_missing(s3_store: S3ArtifactStore) -> None:
    with pytest.raises(FileNotFoundError, match=s3_store.key(sha256(b"never stored"))):
        s3_store.read(sha256(b"never stored"))


@pytest.mark.slow
def test_a_large_file_streams_both_ways_in_bounded_memory(s3_store: S3ArtifactStore) -> None:
    """160 MB made on the fly, stored and read back checked, in a process whose peak memory
    grows by less than half of it (parts of 8 MB, a few at a time)."""
    size = 160
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.adapters.s3_memory",
            S3_ENDPOINT,
            s3_store.bucket,
            s3_store.prefix,
            str(size),
        ],
        cwd=ROOT,
        env={**os.environ, **S3_CREDENTIALS},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["stored"] == report["read"] == s3_memory.expected_sha256(size)
    assert report["peak_mb"] - report["base_mb"] < size / 2, report


def body(parts: int) -> Iterator[bytes]:
    for n in range(parts):
        yield bytes([n]) * PART


@pytest.mark.slow
def test_a_gateway_killed_mid_write_stores_nothing_and_a_rerun_stores_it_whole(
    s3_store: S3ArtifactStore, own_gateway: Gateway
) -> None:
    gateway = own_gateway
    whole = hashlib.sha256(b"".join(body(3))).hexdigest()
    through = S3ArtifactStore(s3_client(gateway.endpoint), s3_store.bucket, s3_store.prefix)
    sent: list[str] = []

    def kill_at_the_second_part(**_: object) -> None:
        sent.append("part")
        if len(sent) == 2:
            gateway.kill()

    through.client.meta.events.register("before-send.s3.UploadPart", kill_at_the_second_part)
    with pytest.raises(S3Unavailable, match="nothing was stored under a content address") as e:
        through.put_stream(body(3))
    assert "run again once the gateway answers" in str(e.value)
    assert not stored(s3_store, whole)  # seen through the other gateway, on the same filer
    gateway.start()  # the rerun
    fingerprint = through.put_stream(body(3))
    assert (fingerprint.sha256, fingerprint.bytes) == (whole, 3 * PART)
    assert hashlib.sha256(b"".join(s3_store.read(whole))).hexdigest() == whole


def test_an_unreachable_gateway_is_a_clear_error(s3_store: S3ArtifactStore) -> None:
    nowhere = S3ArtifactStore(
        s3_client(f"http://127.0.0.1:{free_port()}"), s3_store.bucket, s3_store.prefix
    )
    with pytest.raises(S3Unavailable, match="failed while storing") as e:
        nowhere.put_stream([b"a file"])
    assert "Could not connect to the endpoint URL" in str(e.value)
    with pytest.raises(S3Unavailable, match="nothing of it was given out"):
        nowhere.read(sha256(b"a file"))
