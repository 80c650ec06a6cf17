"""scripts/check-ttl-methodology.sh and check-cost-methodology.sh: the methodology text and the
configuration in force must agree, or `make test` fails (methodology section 7, ISSUE-072)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from adapters.orchestrator_config import DEFAULT, load_config
from domain.errors import SetupError
from tests.reference import SEEDS

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
    assert (config.keys.limit_usd, config.keys.gpu_limit_usd) == (3, 3)
    assert config.sandbox.sweep_seconds == 60
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
        (
            "cost",
            "gpu_limit_usd = 3",
            "gpu_limit_usd = 10",
            "GPU key spending limit: the methodology says 3 USD (its per-run line), "
            "the orchestrator is configured with 10",
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


def methodology_with(tmp_path: Path, *lines: str) -> Path:
    """The Spanish text with `lines` added after its per-run spending-limit line."""
    seed = SEEDS / "000_2a1986884883d5ad.txt"
    text = tmp_path / "methodology.txt"
    text.write_text(seed.read_text(encoding="utf-8") + "\n" + "\n".join(lines) + "\n")
    return text


def test_a_gpu_line_in_the_text_is_what_gpu_limit_usd_is_checked_against(
    tmp_path: Path,
) -> None:
    """Section 6a leaves a GPU run's budget to be decided apart: once the text states a GPU
    line, gpu_limit_usd must match it, not the per-run line."""
    gpu_line = "Límite de gasto de la clave del modelo de cada ejecución con GPU: 10 USD."
    text = methodology_with(tmp_path, gpu_line)
    result = check("cost", ARGUSIC_METHODOLOGY_TEXTS=str(text))
    assert result.returncode == 1
    assert "GPU key spending limit: the methodology says 10 USD (its GPU line)" in result.stderr
    assert result.stderr.count("spending limit") == 1  # the per-run line still agrees
    config = tmp_path / "orchestrator.toml"
    config.write_text(CONFIG.replace("gpu_limit_usd = 3", "gpu_limit_usd = 10"))
    assert check("cost", config, ARGUSIC_METHODOLOGY_TEXTS=str(text)).returncode == 0
    twice = methodology_with(tmp_path, gpu_line, gpu_line)
    result = check("cost", config, ARGUSIC_METHODOLOGY_TEXTS=str(twice))
    assert result.returncode == 2
    assert "2 spending-limit lines for a GPU run's key" in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("gpu_limit_usd = 3\n", "", "gpu_limit_usd"),
        ("gpu_limit_usd = 3", "gpu_limit_usd = 0", "gpu_limit_usd"),
        ("sweep_seconds = 60", "sweep_seconds = 0", "sweep_seconds"),
        ("sweep_seconds = 60", 'sweep_seconds = "often"', "sweep_seconds"),
    ],
)
def test_the_gpu_limit_and_the_sweep_period_are_checked_on_load(
    tmp_path: Path, old: str, new: str, says: str
) -> None:
    config = tmp_path / "orchestrator.toml"
    config.write_text(CONFIG.replace(old, new))
    with pytest.raises(SetupError, match=says):
        load_config(config)
    assert check("cost", config).returncode == 2
