"""The HTTP API fuzzed from its own OpenAPI document (issue 16): schemathesis generates requests
for every operation of /schema/openapi.json, valid and invalid, against a real server on
127.0.0.1 over the demo, for a bounded time. No answer may be a server error, every status and
content type must be documented, every response must match its schema, every invalid request
must be refused, and every error must be a problem document (`fuzz_checks.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from api.wiring import Settings
from ledger.ledger import Ledger
from tests.conftest import load_bundled_demo
from tests.servers import serving

ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = str(Path(sys.executable).parent / "schemathesis")
FUZZ_SECONDS = 60
"""Fuzzing stops by itself after this long (of the suite's 20 minutes on 2 cores)."""
CHECKS = ",".join(
    (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "unsupported_method",
        "problem_document",
    )
)


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_every_operation_fuzzed_from_the_openapi_document(
    settings: Settings, ledger: Ledger, cli_env: dict[str, str]
) -> None:
    load_bundled_demo(settings, ledger)
    with serving(cli_env) as address:
        paths = httpx.get(f"{address}/schema/openapi.json").json()["paths"]
        operations = sum(len(methods) for methods in paths.values())
        fuzz = subprocess.run(
            [
                SCHEMATHESIS,
                "--config-file",
                str(ROOT / "tests" / "api" / "schemathesis.toml"),
                "run",
                f"{address}/schema/openapi.json",
                "--checks",
                CHECKS,
                "--max-time",
                str(FUZZ_SECONDS),
                "--seed",
                "16",
            ],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=settings.home.parent,
            capture_output=True,
            text=True,
            timeout=FUZZ_SECONDS * 3,
            check=False,
        )
    assert fuzz.returncode == 0, fuzz.stdout[-30_000:] + fuzz.stderr[-5_000:]
    assert f"Tested: {operations}\n" in fuzz.stdout, "every operation is fuzzed"
