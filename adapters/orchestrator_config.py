"""The orchestrator's configuration file (TOML), read once through ARGUSIC_ORCHESTRATOR_CONFIG."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

import msgspec

from domain.errors import SetupError
from domain.runner.config import OrchestratorConfig

DEFAULT = Path("config/orchestrator.toml")


def config_path(env: Mapping[str, str] = os.environ) -> Path:
    return Path(env.get("ARGUSIC_ORCHESTRATOR_CONFIG") or DEFAULT)


def load_config(path: Path) -> OrchestratorConfig:
    """The configuration in `path`, checked: an unknown key or a bad value names itself."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise SetupError(f"no orchestrator configuration at {path}") from e
    except tomllib.TOMLDecodeError as e:
        raise SetupError(f"{path} is not TOML: {e}") from e
    try:
        return msgspec.convert(raw, OrchestratorConfig)
    except msgspec.ValidationError as e:
        raise SetupError(f"{path}: {e}") from e
