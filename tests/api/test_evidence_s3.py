"""Evidence on S3-compatible storage (`ARGUSIC_ARTIFACTS_URL=s3://…`, SeaweedFS's gateway):
the commands store and check it there exactly as on disk."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from litestar.testing import TestClient

from adapters.artifacts import FileArtifactStore
from adapters.s3_artifacts import S3ArtifactStore
from api.http import create_app
from api.wiring import Argusic, ConfigurationError, Settings, artifact_store
from tests.conftest import argusic

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def verified(env: dict[str, str]) -> tuple[int, dict[str, object]]:
    done = argusic(env, "ledger", "verify", "--evidence", "--json")
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
@SQLITE_ONLY
def test_verify_evidence_checks_the_s3_store_and_names_a_changed_and_a_deleted_file(
    cli_env: dict[str, str], s3_env: dict[str, str], s3_store: S3ArtifactStore
) -> None:
    env = cli_env | s3_env
    assert argusic(env, "init").returncode == 0
    assert argusic(env, "demo").returncode == 0, argusic(env, "demo").stderr
    code, report = verified(env)
    evidence = report["evidence"]
    assert isinstance(evidence, dict)
    assert (code, report["ok"], evidence["problems"]) == (0, True, [])
    client, bucket = s3_store.client, s3_store.bucket
    keys = [
        item["Key"]
        for page in client.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=s3_store.prefix
        )
        for item in page.get("Contents", [])
    ]
    assert len(keys) == evidence["files_checked"] > 1  # every file the ledger records is there
    changed, deleted = sorted(keys)[:2]
    client.put_object(Bucket=bucket, Key=changed, Body=b"not the recorded bytes")
    client.delete_object(Bucket=bucket, Key=deleted)
    code, report = verified(env)
    evidence = report["evidence"]
    assert isinstance(evidence, dict)
    reasons = {p["sha256"]: p["reason"] for p in evidence["problems"]}
    assert (code, report["ok"], set(reasons)) == (3, False, {changed[-64:], deleted[-64:]})
    assert reasons[deleted[-64:]] == "the file is missing"
    assert "its bytes hash to " in reasons[changed[-64:]]
    assert not (Path(env["ARGUSIC_HOME"]) / "artifacts").exists()  # nothing of it on this disk


@pytest.mark.slow
@SQLITE_ONLY
def test_an_unreachable_s3_store_is_a_clear_error_and_nothing_is_recorded(
    cli_env: dict[str, str], s3_env: dict[str, str]
) -> None:
    env = cli_env | s3_env | {"ARGUSIC_S3_ENDPOINT": "http://127.0.0.1:9"}  # nothing answers
    assert argusic(env, "init").returncode == 0
    done = argusic(env, "demo", "--json")
    assert done.returncode == 2
    assert "run again once the gateway answers" in json.loads(done.stdout)["error"]
    exported = argusic(env, "ledger", "export").stdout.splitlines()
    recorded = {json.loads(line)["type"] for line in exported}
    assert "EditionDrafted" in recorded  # the demo's editions went in before its first run
    assert not {"RunRecorded", "EvidenceTransformed"} & recorded  # no run without its files


def test_the_artifacts_url_chooses_the_store(tmp_path: Path) -> None:
    def store(url: str | None) -> object:
        return artifact_store(Settings("sqlite:///x.db", tmp_path, None, artifacts_url=url))

    default, chosen = store(None), store(f"file://{tmp_path}/elsewhere")
    assert isinstance(default, FileArtifactStore)
    assert default.root == tmp_path / "artifacts"
    assert isinstance(chosen, FileArtifactStore)
    assert chosen.root == tmp_path / "elsewhere"
    s3 = store("s3://evidence/argusic/main")
    assert isinstance(s3, S3ArtifactStore)
    assert (s3.bucket, s3.key("ab" * 32)) == ("evidence", f"argusic/main/sha256/ab/{'ab' * 32}")
    for wrong in ("file://relative/path", "s3:///no-bucket", "https://example.org/x"):
        with pytest.raises(ConfigurationError, match="ARGUSIC_ARTIFACTS_URL"):
            store(wrong)


@pytest.mark.slow
@SQLITE_ONLY
def test_a_server_whose_s3_store_stops_answering_says_only_that(
    cli_env: dict[str, str], s3_env: dict[str, str], settings: Settings
) -> None:
    env = cli_env | s3_env
    assert argusic(env, "init").returncode == 0
    assert argusic(env, "demo").returncode == 0
    run_id = "demo-001"  # published by the demo, its recording on the S3 store
    gone = dataclasses.replace(
        settings, artifacts_url=s3_env["ARGUSIC_ARTIFACTS_URL"], s3_endpoint="http://127.0.0.1:9"
    )
    opened = Argusic.open(gone)
    try:
        with TestClient(app=create_app(opened)) as client:
            answer = client.get(f"/runs/{run_id}/evidence/cast")
    finally:
        opened.close()
    assert answer.status_code == 503
    assert answer.json()["detail"] == "the evidence store is unavailable; try again shortly"
    assert "127.0.0.1" not in answer.text
    assert s3_env["ARGUSIC_ARTIFACTS_URL"].removeprefix("s3://") not in answer.text
