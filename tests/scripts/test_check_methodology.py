"""scripts/check-ttl-methodology.sh and check-cost-methodology.sh: the methodology text and the
configuration in force must agree, or `make test` fails (methodology section 7, ISSUE-072)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from adapters.orchestrator_config import DEFAULT, load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = (ROOT / DEFAULT).read_text()


def check(kind: str, config: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    environment.pop("ARGUSIC_ORCHESTRATOR_CONFIG", None)
    if config is not None:
        environment["ARGUSIC_ORCHESTRATOR_CONFIG"] = str(config)
    return subprocess.run(
        [str(ROOT / "scripts" / f"check-{kind}-methodology.sh")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_production_configuration_is_the_methodology_s() -> None:
    config = load_config(ROOT / DEFAULT)
    assert (config.budgets.standard, config.budgets.heavy, config.budgets.gpu) == (90, 120, 120)
    assert config.keys.limit_usd == 3
    assert check("ttl").returncode == 0
    assert check("cost").returncode == 0


@pytest.mark.parametrize(
    ("kind", "old", "new", "says"),
    [
        ("ttl", "gpu = 120", "gpu = 240", "budget gpu: the methodology says 120 minutes"),
        ("ttl", "standard = 90", "standard = 45", "budget standard"),
        ("ttl", "heavy = 120", "heavy = 120.5", "budget heavy"),
        (
            "cost",
            "limit_usd = 3",
            "limit_usd = 5",
            "key spending limit: the methodology says 3 USD",
        ),
    ],
)
def test_a_differing_configuration_fails(
    tmp_path: Path, kind: str, old: str, new: str, says: str
) -> None:
    assert old in CONFIG
    config = tmp_path / "orchestrator.toml"
    config.write_text(CONFIG.replace(old, new))
    result = check(kind, config)
    assert result.returncode == 1
    assert says in result.stderr


def test_a_text_without_the_table_or_the_line_fails(tmp_path: Path) -> None:
    text = tmp_path / "methodology.txt"
    text.write_text("standard\t90 minutos\nheavy\t120 minutos\n")
    result = check("ttl", ARGUSIC_METHODOLOGY_TEXTS=str(text))
    assert result.returncode == 2
    assert "budget table" in result.stderr
    assert check("cost", ARGUSIC_METHODOLOGY_TEXTS=str(text)).returncode == 2


def test_a_relative_configuration_path_is_the_caller_s(tmp_path: Path) -> None:
    (tmp_path / "o.toml").write_text(CONFIG.replace("gpu = 120", "gpu = 240"))
    result = subprocess.run(
        [str(ROOT / "scripts" / "check-ttl-methodology.sh")],
        env={**os.environ, "ARGUSIC_ORCHESTRATOR_CONFIG": "o.toml"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr
