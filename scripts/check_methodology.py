"""Compare the methodology with the orchestrator's configuration in force (methodology
section 7): the budget table (`ttl`) and the per-run key's spending-limit line (`cost`) of the
methodology text, which also holds for a run that needs a GPU (section 6a) until the text gives
GPU runs a line of their own ("... de cada ejecución con GPU: N USD"), and the same figures on
the page we serve (`served URL`, issue 28).

Run by scripts/check-ttl-methodology.sh and scripts/check-cost-methodology.sh; exits 1 naming
every difference, 2 when the text, the page or the configuration cannot be read. The texts are
the Spanish methodology and its Portuguese translation (same rules); ARGUSIC_METHODOLOGY_TEXTS
(paths separated by ':') overrides them. `served URL` reads URL/methodology as a browser does.
"""

from __future__ import annotations

import os
import re
import sys
import urllib.request
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

from adapters.orchestrator_config import config_path, load_config
from domain.errors import SetupError
from domain.runner.config import OrchestratorConfig

SEEDS = Path(__file__).resolve().parents[1] / "reference" / "seeds"
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


class _Figures(HTMLParser):
    """The served page's budget cells (`data-field="budget"` in a `data-tier` row) and key
    limit (`data-field="key_limit_usd"`): each one's data-value and the text a reader sees."""

    FIELDS = ("budget", "key_limit_usd")

    def __init__(self) -> None:
        super().__init__()
        self.tier: str | None = None
        self.open: list[str] | None = None
        self.found: list[tuple[str, str | None, str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "tr":
            self.tier = values.get("data-tier")
        if values.get("data-field") in self.FIELDS:
            self.open = []
            field = str(values["data-field"])
            self.found.append((field, self.tier, values.get("data-value") or "", self.open))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "span"):
            self.open = None

    def handle_data(self, data: str) -> None:
        if self.open is not None:
            self.open.append(data)


_SHOWN = re.compile(r"^\s*(\d+(?:\.\d+)?) (minutes|USD)\s*$")


def served_figures(page: str) -> tuple[dict[str, float], list[float]]:
    """The budgets per tier and the key limits the served methodology page states: each cell's
    data-value, which must be what its text shows."""
    parser = _Figures()
    parser.feed(page)
    budgets: dict[str, float] = {}
    limits: list[float] = []
    for field, tier, value, pieces in parser.found:
        text = "".join(pieces)
        shown = _SHOWN.match(text)
        try:
            number = float(value)
        except ValueError:
            raise TextError(f"{field} {tier or ''}: data-value {value!r} is not a number") from None
        if shown is None or float(shown.group(1)) != number:
            raise TextError(f"{field} {tier or ''}: the page shows {text.strip()!r}, not {value}")
        if field == "key_limit_usd":
            limits.append(number)
        elif tier in budgets or tier not in TIERS:
            raise TextError(f"the budget table has a second or unknown row {tier!r}")
        else:
            budgets[str(tier)] = number
    if sorted(budgets) != sorted(TIERS):
        raise TextError(f"the page's budget table has rows {sorted(budgets)}, not {list(TIERS)}")
    if len(limits) != 1:
        raise TextError(f"the page states {len(limits)} key spending limits, expected 1")
    return budgets, limits


def served_differences(page: str, config: OrchestratorConfig) -> list[str]:
    """Issue 28: every budget and the key limit the served methodology page states, against the
    configuration the orchestrator runs with; each difference named."""
    budgets, (limit,) = served_figures(page)
    found = [
        f"budget {tier}: the served page says {budgets[tier]:g} minutes, "
        f"the orchestrator is configured with {getattr(config.budgets, tier):g}"
        for tier in TIERS
        if budgets[tier] != float(getattr(config.budgets, tier))
    ]
    if limit != config.keys.limit_usd:
        found.append(
            f"key spending limit: the served page says {limit:g} USD, "
            f"the orchestrator is configured with {config.keys.limit_usd:g}"
        )
    return found


def read_page(origin: str) -> str:
    request = urllib.request.Request(
        origin.rstrip("/") + "/methodology", headers={"Accept": "text/html"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return str(answer.read().decode("utf-8"))


def served(origin: str, env: dict[str, str]) -> int:
    """`served URL`: the page at URL/methodology against the configuration in force."""
    try:
        failures = served_differences(read_page(origin), load_config(config_path(env)))
    except (OSError, SetupError) as e:
        print(f"check-served-methodology: {e}", file=sys.stderr)
        return 2
    return _reported("served", failures, f"{origin} states what {config_path(env)} configures")


def _reported(kind: str, failures: list[str], agreed: str) -> int:
    """Each failure on stderr, or what agrees on stdout; the exit code."""
    for failure in failures:
        print(f"check-{kind}-methodology: {failure}", file=sys.stderr)
    if not failures:
        print(f"check-{kind}-methodology: {agreed}")
    return 1 if failures else 0


def main(argv: Sequence[str]) -> int:
    kind = argv[0] if argv else ""
    if kind == "served" and len(argv) == 2:
        return served(argv[1], dict(os.environ))
    if kind not in ("ttl", "cost"):
        print("usage: check_methodology.py ttl|cost|served URL", file=sys.stderr)
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
    return _reported(kind, failures, f"{config_path(env)} agrees with the methodology")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
