"""Issue 28: the methodology page in a real browser (Debian's Chromium) states the rules the code
applies and the configuration the server runs with. Each figure is read from the served page and
compared with the document and the code's own constants; a server started with a test
configuration serves other budgets; the budget check (`scripts/check_methodology.py`) passes on
the served page and fails on one that disagrees with the configuration (ISSUE-072)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.orchestrator_config import DEFAULT, load_config
from api.wiring import Settings, init
from domain import environment_qa, scoring, spread
from domain.evidence.pipeline import section_17
from domain.runner.config import OrchestratorConfig
from domain.verdict import verdict_chain
from scripts.check_methodology import TextError, served_differences, served_figures
from tests.api.web.browser import Browser, require_browser
from tests.conftest import load_bundled_demo
from tests.publishing import publish
from tests.servers import serving

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION = (ROOT / DEFAULT).read_text()
TEST_CONFIG = (
    PRODUCTION.replace("standard = 90", "standard = 45")
    .replace("heavy = 120", "heavy = 150.5")
    .replace("gpu = 120", "gpu = 240")
    .replace("limit_usd = 3", "limit_usd = 5")
)


@dataclass
class Served:
    origin: str
    config: OrchestratorConfig


@dataclass
class Sites:
    production: Served
    test: Served
    browser: Browser

    def page(self, served: Served) -> str:
        self.browser.origin = served.origin
        self.browser.open("/methodology")
        return str(self.browser.driver.page_source)


def document(served: Served) -> Any:
    answer = httpx.get(f"{served.origin}/methodology", timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sites]:
    require_browser()
    folder = tmp_path_factory.mktemp("methodology")
    settings = Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json")
    book, _ = init(settings)
    load_bundled_demo(settings, book)
    publish(book, settings.home)
    book.close()
    test_config = folder / "orchestrator.toml"
    test_config.write_text(TEST_CONFIG)
    env = {
        "PATH": "/usr/bin:/bin",
        "ARGUSIC_DATABASE_URL": settings.database_url,
        "ARGUSIC_HOME": str(settings.home),
        "ARGUSIC_LOG_FORMAT": "json",
    }
    test_env = {**env, "ARGUSIC_ORCHESTRATOR_CONFIG": str(test_config)}
    with (
        serving(env, folder / "production.log") as production,
        serving(test_env, folder / "test.log") as test,
    ):
        browser = Browser(production)
        try:
            yield Sites(
                Served(production, load_config(ROOT / DEFAULT)),
                Served(test, load_config(test_config)),
                browser,
            )
        finally:
            browser.close()


def budgets_shown(sites: Sites) -> dict[str, tuple[str, str]]:
    """Each budget row of the page as the browser renders it: data-value and text."""
    shown = dict(
        sites.browser.script(
            "return [...document.querySelectorAll('table.budgets tbody tr')].map(r =>"
            " [r.dataset.tier, [r.querySelector('[data-field=budget]').dataset.value,"
            " r.querySelector('[data-field=budget]').innerText.trim()]])"
        )
    )
    return {tier: (value, text) for tier, (value, text) in shown.items()}


def field(sites: Sites, name: str) -> tuple[str, str]:
    return tuple(
        sites.browser.script(
            "const e = document.querySelector(`[data-field=${arguments[0]}]`);"
            " return [e.dataset.value ?? '', e.innerText.trim()]",
            name,
        )
    )


@pytest.mark.parametrize("which", ["production", "test"])
def test_the_page_states_the_budgets_and_key_limit_the_server_runs_with(
    sites: Sites, which: str
) -> None:
    served: Served = getattr(sites, which)
    sites.page(served)
    budgets = served.config.budgets
    configured = {"standard": budgets.standard, "heavy": budgets.heavy, "gpu": budgets.gpu}
    assert budgets_shown(sites) == {
        tier: (repr(float(minutes)), f"{minutes:g} minutes") for tier, minutes in configured.items()
    }
    limit = served.config.keys.limit_usd
    assert field(sites, "key_limit_usd") == (repr(float(limit)), f"{limit:g} USD")
    rules = document(served)["rules"]
    assert {b["tier"]: b["minutes"] for b in rules["budgets"]["tiers"]} == configured
    assert rules["key_limit_usd"] == limit


def test_a_test_configuration_changes_the_page(sites: Sites) -> None:
    production = served_figures(sites.page(sites.production))
    test = served_figures(sites.page(sites.test))
    assert production == ({"standard": 90, "heavy": 120, "gpu": 120}, [3])
    assert test == ({"standard": 45, "heavy": 150.5, "gpu": 240}, [5])


def test_the_budget_check_passes_on_the_served_page_and_fails_on_one_that_disagrees(
    sites: Sites,
) -> None:
    production, test = sites.production, sites.test
    page = sites.page(production)
    assert served_differences(page, production.config) == []
    assert served_differences(sites.page(test), test.config) == []
    # ISSUE-072: the configuration changed, the page served still says what it said
    assert served_differences(page, test.config) == [
        "budget standard: the served page says 90 minutes, the orchestrator is configured with 45",
        "budget heavy: the served page says 120 minutes, the orchestrator is configured with 150.5",
        "budget gpu: the served page says 120 minutes, the orchestrator is configured with 240",
        "key spending limit: the served page says 3 USD, the orchestrator is configured with 5",
    ]


DOCTORED = {
    "gpu-240": (
        (
            'gpu</th><td class="num" data-field="budget" data-value="120.0">120 minutes',
            'gpu</th><td class="num" data-field="budget" data-value="240.0">240 minutes',
        ),
        "budget gpu: the served page says 240 minutes, the orchestrator is configured with 120",
    ),
    "key-limit-5": (
        ('data-value="3.0">3 USD', 'data-value="5.0">5 USD'),
        "key spending limit: the served page says 5 USD, the orchestrator is configured with 3",
    ),
}


@pytest.mark.parametrize("probe", sorted(DOCTORED))
def test_the_budget_check_fails_on_a_doctored_page(sites: Sites, probe: str) -> None:
    page = sites.page(sites.production)
    (old, new), says = DOCTORED[probe]
    assert page.count(old) == 1, probe
    assert served_differences(page.replace(old, new), sites.production.config) == [says]


UNREADABLE = {
    "text-only-changed": ('data-value="90.0">90 minutes', 'data-value="90.0">45 minutes'),
    "row-gone": ('<tr data-tier="heavy">', '<tr data-tier="extra">'),
    "limit-gone": ('data-field="key_limit_usd"', 'data-field="limit"'),
    "value-not-a-number": ('data-value="3.0">3 USD', 'data-value="three">3 USD'),
}


@pytest.mark.parametrize("probe", sorted(UNREADABLE))
def test_a_page_the_check_cannot_read_fails_it(sites: Sites, probe: str) -> None:
    page = sites.page(sites.production)
    old, new = UNREADABLE[probe]
    assert page.count(old) == 1, probe
    with pytest.raises(TextError):
        served_differences(page.replace(old, new), sites.production.config)


def test_the_check_command_reads_the_served_page(sites: Sites, tmp_path: Path) -> None:
    def check(origin: str, config: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "scripts.check_methodology", "served", origin],
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "ARGUSIC_ORCHESTRATOR_CONFIG": str(config)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    changed = tmp_path / "orchestrator.toml"
    changed.write_text(TEST_CONFIG)
    assert check(sites.production.origin, ROOT / DEFAULT).returncode == 0
    assert check(sites.test.origin, changed).returncode == 0
    disagrees = check(sites.production.origin, changed)
    assert disagrees.returncode == 1
    assert "budget gpu: the served page says 120 minutes" in disagrees.stderr


def rows(sites: Sites, table: str, key: str) -> dict[str, dict[str, str]]:
    """Each row of a table by its data-`key`: its data-field cells' data-value and text."""
    return dict(
        sites.browser.script(
            "return [...document.querySelectorAll(arguments[0] + ' tbody tr')].map(row =>"
            " [row.dataset[arguments[1]], Object.fromEntries([...row.querySelectorAll("
            "'[data-field]')].flatMap(c => [[c.dataset.field, c.dataset.value],"
            " [c.dataset.field + ':text', c.innerText.trim()]]))])",
            table,
            key,
        )
    )


def test_the_rules_on_the_page_are_the_code_s(sites: Sites) -> None:
    sites.page(sites.production)
    rubric = rows(sites, "table.rubric", "line")
    assert {line: int(r["points"]) for line, r in rubric.items()} == scoring.RUBRIC
    assert {line: r["points:text"] for line, r in rubric.items()} == {
        line: str(points) for line, points in scoring.RUBRIC.items()
    }
    assert field(sites, "rubric_total") == ("100", "100")
    depth = sites.browser.script(
        "return [...document.querySelectorAll('ul.depth li')].map(li =>"
        " [li.dataset.depth, li.querySelector('[data-field=points]').innerText.trim()])"
    )
    assert dict(depth) == {d: str(p) for d, p in scoring.DEPTH.items()}
    assert field(sites, "unverified") == (str(scoring.UNVERIFIED), str(scoring.UNVERIFIED))
    threshold = float(spread.UNSTABLE_ABOVE)
    assert field(sites, "unstable_above") == (repr(threshold), f"{threshold:g}%")
    chain = rows(sites, "table.verdict-chain", "edition")
    editions = [e["version"] for e in document(sites.production)["editions"]]
    assert list(chain) == editions
    for edition, row in chain.items():
        expected = verdict_chain(edition)
        assert row["steps"] == " ".join(expected.steps), edition
        assert row["stronger"] == expected.stronger, edition
    assert chain["1.2"]["stronger:text"] == "part of the chain"
    assert chain["1.3"]["stronger:text"].startswith("only on request")
    qa = environment_qa.AGENTS_WITHOUT_ROSTER
    assert field(sites, "agents_without_roster") == (str(qa), str(qa))
    findings = sites.browser.script(
        "return [...document.querySelectorAll('[data-field=finding]')].map(e => e.dataset.value)"
    )
    assert tuple(findings) == environment_qa.FINDINGS
    transforms = rows(sites, "table.evidence-rules", "transform")
    applied = [(t.name, t.version) for t in section_17([], [])]
    assert [(name, int(r["version"])) for name, r in transforms.items()][:3] == applied
    assert transforms["security-redaction"]["applies_to"] == "stored and served"
    assert field(sites, "redacted_marker")[1] == "[REDACTED]"
    assert field(sites, "private_key_marker")[1] == "[PRIVATE KEY MASKED]"
    # the source table and the changelog stay on the page
    assert (
        sites.browser.script(
            "return document.querySelectorAll('#sources ~ div tr[data-source]').length"
        )
        == 8
    )
    assert sites.browser.script("return document.getElementById('editions') !== null")
