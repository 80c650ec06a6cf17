"""The sources SI-IQ reads, from `ARGUSIC_SOURCES_CONFIG` (default `config/sources.toml`).

One table per source with the addresses it is read from (`[epoch] urls = [...]`); a source left
out is not fetched. Two optional tables: `[github]` (`api`, `raw`: the bases GitHub addresses
resolve against, which tests point at a local server) and `[limits]` (`connect_seconds`,
`read_seconds`, `total_seconds`, `max_bytes`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, NamedTuple

from adapters.sources import PARSERS
from adapters.sources.github import GitHubBases
from adapters.sources.http import Limits
from domain.errors import SetupError


class SourcesConfig(NamedTuple):
    sources: dict[str, list[str]]
    github: GitHubBases = GitHubBases()
    limits: Limits = Limits()


def load_sources_config(path: Path) -> SourcesConfig:
    """The configuration at `path`; an unreadable file, an unknown source or a source without
    addresses is a setup error naming it."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SetupError(f"sources configuration {path}: {e}") from e
    github = _table(path, document.pop("github", {}), GitHubBases._fields, str)
    limits = _table(path, document.pop("limits", {}), Limits._fields, float)
    sources: dict[str, list[str]] = {}
    for name, table in document.items():
        if name not in PARSERS:
            known = ", ".join(sorted(PARSERS))
            raise SetupError(f"sources configuration {path}: unknown source [{name}] ({known})")
        urls = table.get("urls") if isinstance(table, dict) else None
        if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
            raise SetupError(f"sources configuration {path}: [{name}] needs urls = [...]")
        sources[name] = list(urls)
    bounds = Limits()._replace(**limits)
    bounds = bounds._replace(max_bytes=int(bounds.max_bytes))
    return SourcesConfig(sources, GitHubBases()._replace(**github), bounds)


def _table(
    path: Path, table: object, fields: tuple[str, ...], kind: type[str] | type[float]
) -> dict[str, Any]:
    """An optional table of known keys, each of the expected kind (an int is a float)."""
    if not isinstance(table, dict):
        raise SetupError(f"sources configuration {path}: expected a table of {', '.join(fields)}")
    for key, value in table.items():
        right = isinstance(value, str) if kind is str else isinstance(value, int | float)
        if key not in fields or not right or isinstance(value, bool):
            raise SetupError(f"sources configuration {path}: {key} = {value!r} is not expected")
    return dict(table)
