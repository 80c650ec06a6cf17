"""Compare the methodology text with the orchestrator's configuration in force (methodology
section 7): the budget table (`ttl`) and the per-run key's spending-limit line (`cost`), which
also holds for a run that needs a GPU (section 6a) until the text gives GPU runs a line of
their own ("... de cada ejecución con GPU: N USD").

Run by scripts/check-ttl-methodology.sh and scripts/check-cost-methodology.sh; exits 1 naming
every difference, 2 when the text or the configuration cannot be read. The texts are the
Spanish methodology and its Portuguese translation (same rules); ARGUSIC_METHODOLOGY_TEXTS
(paths separated by ':') overrides them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from adapters.orchestrator_config import config_path, load_config
from domain.errors import SetupError

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
TEXTS = (SEEDS / "000_2a1986884883d5ad.txt", SEEDS / "001_08726c882d2da4ff.txt")
TIERS = ("standard", "heavy", "gpu")
_ROW = re.compile(r"^(standard|heavy|gpu)\t(\d+(?:[.,]\d+)?) minutos\s*$", re.MULTILINE)
_LIMIT = re.compile(
    r"(?:Límite de gasto de la clave del modelo de cada ejecución"
    r"|Limite de gasto da chave de modelo de cada execução): (\d+(?:[.,]\d+)?) USD"
)


_GPU_LIMIT = re.compile(
    r"(?:Límite de gasto de la clave del modelo de cada ejecución con GPU"
    r"|Limite de gasto da chave de modelo de cada execução com GPU): (\d+(?:[.,]\d+)?) USD"
)


class TextError(SetupError):
    """The methodology text does not say what the check reads."""


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def budget_table(text: str) -> dict[str, float]:
    """Section 7's budget table: exactly one row per tier, in minutes."""
    rows = _ROW.findall(text)
    found = [tier for tier, _ in rows]
    if sorted(found) != sorted(TIERS):
        raise TextError(f"the budget table has rows {found}, not one each of {list(TIERS)}")
    return {tier: _number(minutes) for tier, minutes in rows}


def key_limit(text: str) -> float:
    """Section 7, "La clave del modelo": the one spending-limit line, in USD."""
    lines = _LIMIT.findall(text)
    if len(lines) != 1:
        raise TextError(f"{len(lines)} spending-limit lines for the model key, expected 1")
    return _number(lines[0])


def gpu_key_limit(text: str) -> float | None:
    """Section 6a: a GPU run's key limit "se decide por separado"; its own line if the text
    has one (at most one), else None: the per-run line ("de cada ejecución") holds for it."""
    lines = _GPU_LIMIT.findall(text)
    if len(lines) > 1:
        raise TextError(f"{len(lines)} spending-limit lines for a GPU run's key, expected 0 or 1")
    return _number(lines[0]) if lines else None


def _limits(text: str, limit_usd: float, gpu_limit_usd: float) -> list[str]:
    limit, gpu = key_limit(text), gpu_key_limit(text)
    found = []
    if limit != limit_usd:
        found.append(
            f"key spending limit: the methodology says {limit:g} USD, "
            f"the orchestrator is configured with {limit_usd:g}"
        )
    stated, where = (limit, "its per-run line") if gpu is None else (gpu, "its GPU line")
    if stated != gpu_limit_usd:
        found.append(
            f"GPU key spending limit: the methodology says {stated:g} USD ({where}), "
            f"the orchestrator is configured with {gpu_limit_usd:g}"
        )
    return found


def differences(kind: str, text: str, env: dict[str, str]) -> list[str]:
    config = load_config(config_path(env))
    if kind == "ttl":
        stated = budget_table(text)
        configured = {tier: float(getattr(config.budgets, tier)) for tier in TIERS}
        return [
            f"budget {tier}: the methodology says {stated[tier]:g} minutes, "
            f"the orchestrator is configured with {configured[tier]:g}"
            for tier in TIERS
            if stated[tier] != configured[tier]
        ]
    return _limits(text, config.keys.limit_usd, config.keys.gpu_limit_usd)


def main(argv: Sequence[str]) -> int:
    kind = argv[0] if argv else ""
    if kind not in ("ttl", "cost"):
        print("usage: check_methodology.py ttl|cost", file=sys.stderr)
        return 2
    env = dict(os.environ)
    paths = [Path(p) for p in env.get("ARGUSIC_METHODOLOGY_TEXTS", "").split(":") if p] or TEXTS
    failures = []
    try:
        for path in paths:
            text = path.read_text(encoding="utf-8")
            failures += [f"{path.name}: {d}" for d in differences(kind, text, env)]
    except (OSError, SetupError) as e:
        print(f"check-{kind}-methodology: {e}", file=sys.stderr)
        return 2
    for failure in failures:
        print(f"check-{kind}-methodology: {failure}", file=sys.stderr)
    if not failures:
        print(f"check-{kind}-methodology: {config_path(env)} agrees with the methodology")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
