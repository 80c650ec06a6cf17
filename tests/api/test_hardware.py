"""`argusic hardware` and `GET /hardware/...`: the appendix's table and estimates through the
real console script and a real app."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.wiring import Argusic, Settings
from domain.hardware import MOST_GB, PRICES_USD
from ledger.ledger import Ledger
from tests.conftest import argusic
from tests.domain.test_hardware import APPENDIX

COLUMNS = (
    "weights_gb",
    "context_reserve_gb",
    "overhead_gb",
    "needs_gb",
    "vram_from_gb",
    "unified_memory_from_gb",
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """No ledger is needed: the estimates are arithmetic on published figures."""
    return {**os.environ, "ARGUSIC_HOME": str(tmp_path), "ARGUSIC_LOG_FORMAT": "json"}


def test_the_table_command(env: dict[str, str]) -> None:
    rows = json.loads(argusic(env, "hardware", "table", "--json").stdout)
    assert {r["size_class"]: tuple(round(r[c], 2) for c in COLUMNS) for r in rows} == APPENDIX
    human = argusic(env, "hardware", "table").stdout
    assert "70B        42.83     2.68      1.00   46.51      46.51         62.01" in human


def test_the_estimate_command(env: dict[str, str]) -> None:
    done = argusic(
        env,
        "hardware",
        "estimate",
        "--memory-gb",
        "24",
        "--memory-kind",
        "vram",
        "--bandwidth-gbs",
        "1008",
        "--price-usd",
        "1599",
        "--price-date",
        "2026-11-02",
        "--json",
    )
    result = json.loads(done.stdout)
    assert result["largest_class"] == "27-32B"
    assert result["usable_memory_gb"] == {"value": 24.0, "label": "estimated"}
    assert [c["fits"] for c in result["classes"]] == [True, True, True, False, False]
    assert result["classes"][0]["tokens_per_second_max"]["label"] == "estimated"
    assert result["memory_per_dollar"]["price_date"] == "2026-11-02"
    unknown = json.loads(argusic(env, "hardware", "estimate", "--memory-gb", "24", "--json").stdout)
    assert unknown["largest_class"] == "unknown"
    assert unknown["classes"][0]["tokens_per_second_max"]["value"] == "unknown"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-gb", "-8", "--memory-kind", "vram"], "memory_gb must be a finite number"),
        (["--memory-gb", "lots"], "'lots' is not a valid float"),
        (["--memory-kind", "disk"], "'disk' is not one of"),
        (["--price-usd", "900"], "a price needs its date"),
    ],
)
def test_a_bad_input_is_a_usage_error(env: dict[str, str], args: list[str], message: str) -> None:
    done = argusic(env, "hardware", "estimate", *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_the_estimate_over_http(ledger: Ledger, settings: Settings) -> None:
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        answer = client.get(
            "/hardware/estimate",
            params={"memory_gb": 64, "memory_kind": "unified", "chip": "NVIDIA GB10"},
        )
        assert answer.status_code == 200
        assert answer.json()["largest_class"] == "70B"
        assert answer.json()["machine"]["bandwidth_gbs"] == 273
        assert client.get("/hardware/estimate").json()["largest_class"] == "unknown"
        for bad in ({"memory_gb": -1}, {"memory_gb": "x"}, {"memory_kind": "disk"}, {"chip": "?"}):
            assert client.get("/hardware/estimate", params=bad).status_code == 400
        table = client.get("/hardware/table").json()
        assert [round(r["needs_gb"], 2) for r in table] == [v[3] for v in APPENDIX.values()]


def test_the_estimate_documents_and_keeps_the_ranges_it_takes(
    ledger: Ledger, settings: Settings
) -> None:
    """Issue 16's fuzzing: 1.8e308 GB was accepted and its usable memory answered as null."""
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        document = client.get("/schema/openapi.json").json()
        parameters = document["paths"]["/hardware/estimate"]["get"]["parameters"]
        ranges = {
            p["name"]: (p["schema"].get("minimum"), p["schema"].get("maximum")) for p in parameters
        }
        assert ranges["memory_gb"] == ranges["bandwidth_gbs"] == (0, MOST_GB)
        assert ranges["price_usd"] == PRICES_USD
        for name, value in [("memory_gb", MOST_GB * 1.01), ("price_usd", 0.001)]:
            answer = client.get(
                "/hardware/estimate", params={name: value, "price_date": "2026-01-01"}
            )
            assert answer.status_code == 400
            assert answer.json()["extra"][0]["key"] == name
