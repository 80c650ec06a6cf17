"""Issue 30, deliverables 2 and 3: `pool select` is a signed action that draws a cycle's pools
from the recorded candidates (section 6's split, 30 days, rotation and variety), replays to the
same pools at the same position, and commits to the secret list."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.services.operators import pool_draw
from api.services.reader import ProjectionReader
from api.wiring import Argusic, Settings
from domain.actions import select_pool
from domain.events import Pinned, PoolSelected
from domain.events.operators import SelectPool
from domain.pool import commitment_holds
from domain.state.methodology import Methodology
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection
from tests.api.test_audit_bundle import offline_check
from tests.api.test_pool_candidates import SINCE, github
from tests.api.test_publication import agent
from tests.api.test_reruns import RUNTIME
from tests.api.test_secrets_crawl import HTML, crawl
from tests.conftest import argusic
from tests.github_stand_in import TODAY, GitHubStandIn
from tests.records import EDITIONS, write

__all__ = ["github"]
OWNER = "olga"


def cycle(cycle_id: str, opens: str) -> dict[str, Any]:
    return {"kind": "cycle", "id": cycle_id, "opens": opens, "agents": ["agent-a"], "projects": []}


@pytest.fixture
def env(github: GitHubStandIn, cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env = {**cli_env, "ARGUSIC_GITHUB_API": github.url}
    records = [
        *EDITIONS,
        agent("agent-a") | {"runtime": RUNTIME},
        cycle("2026-11", "2026-11-01"),
        cycle("2026-12", "2026-12-01"),
    ]
    assert argusic(env, "init").returncode == 0
    assert argusic(env, "ingest", str(write(tmp_path, "records.jsonl", records))).returncode == 0
    assert argusic(env, "operator", "init", OWNER).returncode == 0
    fetched = argusic(env, "pool", "candidates", "--since", str(SINCE - timedelta(days=40)))
    assert fetched.returncode == 0, fetched.stderr
    return env


def select(env: dict[str, str], cycle_id: str, opens: str, size: int = 20) -> dict[str, Any]:
    done = argusic(
        env,
        "pool",
        "select",
        "--cycle",
        cycle_id,
        "--opens",
        opens,
        "--size",
        str(size),
        "--as",
        OWNER,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def state_of(settings: Settings) -> Methodology:
    opened = Argusic.open(settings)
    try:
        return ProjectionReader(opened.ledger, MethodologyProjection()).latest()
    finally:
        opened.close()


def test_the_pools_meet_every_rule_and_the_secret_pool_rotates(
    env: dict[str, str], github: GitHubStandIn, settings: Settings
) -> None:
    november = select(env, "2026-11", "2026-11-01")
    december = select(env, "2026-12", str(TODAY))
    for chosen in (november, december):
        assert chosen["secret_count"] == 4
        assert len(chosen["public"]) == 16
        assert set(chosen) == {"cycle", "public", "secret_count", "secret_commitment"}
        languages = Counter(
            max(github.repos[p["project"]].languages.items(), key=lambda kv: (kv[1], kv[0]))[0]
            for p in chosen["public"]
        )
        assert max(languages.values()) <= 8  # no language over half the pool
    state = state_of(settings)
    for cycle_id, opens in (("2026-11", "2026-11-01"), ("2026-12", str(TODAY))):
        chosen = state.selections[cycle_id]
        for pinned in chosen.secret:
            created = github.repos[pinned.project].created
            assert timedelta(0) < TODAY.fromisoformat(opens) - created <= timedelta(days=30)
        assert commitment_holds(chosen.secret, chosen.salt, chosen.commitment)
        tampered = [Pinned(project=chosen.public[0].project, commit=chosen.public[0].commit)]
        assert not commitment_holds(tampered + chosen.secret[1:], chosen.salt, chosen.commitment)
        projects = {p.id: p for p in state.cycles[cycle_id].projects}
        assert {p for p, v in projects.items() if v.pool == "secret"} == {
            p.project for p in chosen.secret
        }
    earlier = {p.project for p in state.selections["2026-11"].secret}
    assert not earlier & {p.project for p in state.selections["2026-12"].secret}


def test_a_second_selection_of_a_cycle_is_refused(env: dict[str, str]) -> None:
    select(env, "2026-12", str(TODAY))
    again = argusic(
        env,
        "pool",
        "select",
        "--cycle",
        "2026-12",
        "--opens",
        str(TODAY),
        "--size",
        "20",
        "--as",
        OWNER,
    )
    assert again.returncode == 1
    assert "cycle 2026-12 has its pool already" in again.stderr


def test_the_same_position_draws_the_same_pools(settings: Settings, env: dict[str, str]) -> None:
    argusic_app = Argusic.open(settings)
    try:
        ledger: Ledger = argusic_app.ledger
        state = ProjectionReader(ledger, MethodologyProjection()).latest()
        action = SelectPool(cycle="2026-12", opens=TODAY, size=20)
        first = pool_draw(action, ledger, state, ledger.size())
        second = pool_draw(action, ledger, state, ledger.size())
        assert first is not None
        assert second is not None
        assert first.seed == second.seed
        assert first.salt != second.salt  # the salt is fresh; the pools are not
        one = select_pool(action, OWNER, state, first)[0]
        two = select_pool(action, OWNER, state, second)[0]
        assert isinstance(one, PoolSelected)
        assert isinstance(two, PoolSelected)
        assert (one.public, one.secret) == (two.public, two.secret)
    finally:
        argusic_app.close()


def test_the_secret_pool_is_in_no_public_answer_until_the_close_and_then_verifies(
    env: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    select(env, "2026-12", str(TODAY))
    assert argusic(env, "publish", "--as", OWNER).returncode == 0
    state = state_of(settings)
    secret = [p.project for p in state.selections["2026-12"].secret]
    opened = Argusic.open(settings)
    try:
        with TestClient(app=create_app(opened)) as client:
            document = client.get("/cycles/2026-12").json()
            assert document["public_pool"] == [
                {"project": p.project, "commit": p.commit}
                for p in state.selections["2026-12"].public
            ]
            assert document["secret_commitment"] == state.selections["2026-12"].commitment
            assert (document["secret_pool"], document["commitment_verified"]) == (None, None)
            answers = crawl(client, [])
            answers |= {"/cycles/2026-12": client.get("/cycles/2026-12", headers=HTML).text}
            answers |= {"/agents": client.get("/agents?cycle=2026-12").text}
            for path, text in answers.items():
                assert not [p for p in secret if p in text], path
                assert state.selections["2026-12"].salt not in text, path
    finally:
        opened.close()
    close = write(tmp_path, "close.json", [{"action": "close_cycle", "cycle": "2026-12"}])
    assert argusic(env, "operator", "act", str(close), "--as", OWNER).returncode == 0
    assert argusic(env, "publish", "--as", OWNER).returncode == 0
    opened = Argusic.open(settings)
    try:
        with TestClient(app=create_app(opened)) as client:
            document = client.get("/cycles/2026-12").json()
            assert [p["project"] for p in document["secret_pool"]] == sorted(secret)
            assert document["commitment_verified"] is True
            page = client.get("/cycles/2026-12", headers=HTML).text
            assert 'data-verified="true"' in page
    finally:
        opened.close()


def test_a_cycle_is_scheduled_only_once_its_public_pool_is_published(env: dict[str, str]) -> None:
    select(env, "2026-12", str(TODAY))
    refused = argusic(env, "schedule", "--cycle", "2026-12")
    assert refused.returncode == 1
    assert "cycle 2026-12: its public pool (fixed at position" in refused.stderr
    assert "is in no approved publication yet" in refused.stderr
    assert argusic(env, "publish", "--as", OWNER).returncode == 0
    scheduled = argusic(env, "schedule", "--cycle", "2026-12", "--json")
    assert scheduled.returncode == 0, scheduled.stderr
    assert len(json.loads(scheduled.stdout)["scheduled"]) == 20 * 3  # three runs a project


def test_the_commitment_verifies_offline_from_an_audit_bundle_and_a_tampered_list_fails(
    env: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    select(env, "2026-12", str(TODAY))
    close = write(tmp_path, "close.json", [{"action": "close_cycle", "cycle": "2026-12"}])
    assert argusic(env, "operator", "act", str(close), "--as", OWNER).returncode == 0
    assert argusic(env, "publish", "--as", OWNER).returncode == 0
    folder = tmp_path / "bundle"
    made = argusic(env, "audit", "bundle", "cycle:2026-12", "--out", str(folder))
    assert made.returncode == 0, made.stderr
    key = argusic(env, "ledger", "public-key").stdout.strip()
    code, checked = offline_check(folder, "--key", key)
    assert code == 0, checked
    assert checked["value"]["commitment_verified"] is True
    secret = state_of(settings).selections["2026-12"].secret
    assert [p["project"] for p in checked["value"]["secret_pool"]] == sorted(
        p.project for p in secret
    )
    # a secret list swapped in the bundle's figure: the events recompute another
    figure = json.loads((folder / "figure.json").read_text())
    figure["value"]["secret_pool"][0]["project"] = "someone/else"
    (folder / "figure.json").write_text(json.dumps(figure))
    code, failed = offline_check(folder, "--key", key)
    assert code == 3
    assert "figure cycle:2026-12: recomputed" in failed["error"]
