"""Issue 28: the `/methodology` document carries the rules as the code applies them (sections
8, 10, 11, 15 and 17) and the budgets and key limit the server's configuration gives (section
7), and its page shows each of them (litestar's test client over the demo)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.orchestrator_config import DEFAULT, load_config
from api.http import create_app
from api.wiring import Argusic, Settings, init
from domain import environment_qa, scoring, spread
from domain.errors import SetupError
from domain.evidence import generated_keys, quoting, redaction
from domain.evidence.pipeline import section_17
from domain.runner.budgets import HEAVY_REPOSITORY_MB
from domain.verdict import verdict_chain
from ledger.ledger import Ledger
from scripts.check_methodology import served_differences
from tests.conftest import load_bundled_demo
from tests.publishing import publish

ROOT = Path(__file__).resolve().parents[2]
HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Ledger]]:
    folder = tmp_path_factory.mktemp("rules")
    settings = Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json")
    book, _ = init(settings)
    load_bundled_demo(settings, book)
    publish(book, settings.home)
    yield settings, book
    book.close()


def served(settings: Settings, book: Ledger, config: Path) -> Iterator[TestClient[Any]]:
    configured = Settings(settings.database_url, settings.home, "json", orchestrator_config=config)
    with TestClient(app=create_app(Argusic(configured, book))) as client:
        yield client


@pytest.fixture(scope="module")
def client(demo: tuple[Settings, Ledger]) -> Iterator[TestClient[Any]]:
    yield from served(*demo, ROOT / DEFAULT)


@pytest.fixture(scope="module")
def rules(client: TestClient[Any]) -> dict[str, Any]:
    answer = client.get("/methodology")
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["rules"])


def test_the_rubric_is_scoring_s(rules: dict[str, Any]) -> None:
    rubric = rules["rubric"]
    assert {r["line"]: r["points"] for r in rubric["lines"]} == scoring.RUBRIC
    assert rubric["total"] == sum(scoring.RUBRIC.values()) == 100
    assert {d["depth"]: d["points"] for d in rubric["depth"]} == scoring.DEPTH
    assert rubric["unverified"] == scoring.UNVERIFIED == 80
    assert tuple(rubric["outcomes"]) == scoring.OUTCOMES


def test_the_spread_rule_is_spread_s(rules: dict[str, Any]) -> None:
    assert rules["spread"] == {"formula": spread.FORMULA, "unstable_above": 30}
    assert rules["spread"]["unstable_above"] == spread.UNSTABLE_ABOVE


def test_the_verdict_chain_is_verdict_s_for_every_edition(
    client: TestClient[Any], rules: dict[str, Any]
) -> None:
    editions = [e["version"] for e in client.get("/methodology").json()["editions"]]
    assert [c["edition"] for c in rules["verdict_chain"]] == editions
    for row in rules["verdict_chain"]:
        chain = verdict_chain(row["edition"])
        assert (tuple(row["steps"]), row["stronger"]) == (chain.steps, chain.stronger)
    by_edition = {c["edition"]: c for c in rules["verdict_chain"]}
    assert by_edition["1.2"]["steps"] == ["standard", "retry", "stronger"]
    assert by_edition["1.3"] == {
        "edition": "1.3",
        "steps": ["standard", "standard"],
        "stronger": "on_request",
    }


def test_environment_qa_is_environment_qa_s(rules: dict[str, Any]) -> None:
    assert rules["environment_qa"] == {
        "agents_without_roster": environment_qa.AGENTS_WITHOUT_ROSTER,
        "findings": list(environment_qa.FINDINGS),
    }


def test_the_evidence_rules_are_the_transforms_applied(rules: dict[str, Any]) -> None:
    evidence = rules["evidence"]
    applied = [(t.name, t.version) for t in section_17([], [])]
    named = [(t["name"], t["version"]) for t in evidence["transforms"]]
    assert named == [*applied, (quoting.NAME, quoting.VERSION)]
    assert [t["applies_to"] for t in evidence["transforms"]] == [
        "stored and served",
        "served",
        "served",
        "quoted text",
    ]
    assert evidence["redacted_marker"] == redaction.MARKER
    assert evidence["private_key_marker"] == generated_keys.MARKER


def test_budgets_and_key_limit_are_the_configuration_s(rules: dict[str, Any]) -> None:
    assert rules["budgets"] == {
        "tiers": [
            {"tier": "standard", "minutes": 90},
            {"tier": "heavy", "minutes": 120},
            {"tier": "gpu", "minutes": 120},
        ],
        "heavy_from": "1.2",
        "heavy_repository_mb": HEAVY_REPOSITORY_MB,
    }
    assert rules["key_limit_usd"] == 3


def test_another_configuration_serves_other_budgets_on_the_document_and_the_page(
    demo: tuple[Settings, Ledger], client: TestClient[Any], tmp_path: Path
) -> None:
    production = (ROOT / DEFAULT).read_text()
    config = tmp_path / "orchestrator.toml"
    config.write_text(production.replace("gpu = 120", "gpu = 240").replace("= 3", "= 2.5"))
    for other in served(*demo, config):
        rules = other.get("/methodology").json()["rules"]
        assert rules["budgets"]["tiers"][2] == {"tier": "gpu", "minutes": 240}
        assert rules["key_limit_usd"] == 2.5
        page = other.get("/methodology", headers=HTML).text
        assert ">240 minutes<" in page
        assert ">2.5 USD<" in page
        before = client.get("/methodology", headers=HTML).text
        assert served_differences(before, Argusic(demo[0], demo[1]).orchestrator) == []
        assert served_differences(page, load_config(config)) == []
        assert len(served_differences(before, load_config(config))) == 2


def test_a_configuration_that_does_not_load_stops_the_server(
    demo: tuple[Settings, Ledger], tmp_path: Path
) -> None:
    broken = tmp_path / "orchestrator.toml"
    broken.write_text("[budgets]\nstandard = 0\n")
    settings, book = demo
    configured = Settings(settings.database_url, settings.home, "json", orchestrator_config=broken)
    with pytest.raises(SetupError):
        create_app(Argusic(configured, book))


def test_other_pages_name_the_spread_threshold_the_rule_applies(client: TestClient[Any]) -> None:
    threshold = f"{float(spread.UNSTABLE_ABOVE):g}%"
    assert threshold == "30%"
    leaderboard = client.get("/leaderboard?cycle=2026-09", headers=HTML).text
    assert f"the three runs differ by more than {threshold})" in leaderboard
    project = client.get("/projects/demo/pixel-forge", headers=HTML).text
    assert f"above {threshold} the set is unstable" in project
