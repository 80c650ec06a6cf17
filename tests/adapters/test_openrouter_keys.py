"""The key client against the stand-in over real HTTP on 127.0.0.1: the protocol, the bounds,
failing closed, and keys that answer 401 once deleted or expired."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from adapters.keys_stand_in import KeyStandIn
from adapters.openrouter_keys import KeyProviderError, OpenRouterKeys, Secret

TOKEN = "mgmt-token-for-tests"


@pytest.fixture
def stand_in() -> Iterator[KeyStandIn]:
    server = KeyStandIn(TOKEN).start()
    yield server
    server.stop()


@pytest.fixture
def keys(stand_in: KeyStandIn) -> Iterator[OpenRouterKeys]:
    client = OpenRouterKeys(stand_in.url, Secret(TOKEN), timeout=2)
    yield client
    client.close()


def later(seconds: float = 600) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=seconds)


def model_call(stand_in: KeyStandIn, secret: str) -> int:
    response = httpx.post(
        f"{stand_in.url}/chat/completions",
        headers={"Authorization": f"Bearer {secret}"},
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        timeout=5,
    )
    return response.status_code


def test_create_get_list_delete(keys: OpenRouterKeys, stand_in: KeyStandIn) -> None:
    created = keys.create("argusic-run:L:c1:r1", 3, later())
    secret = created.secret.reveal()
    assert secret.startswith("sk-or-v1-")
    assert len(secret) == len("sk-or-v1-") + 64
    assert created.info.limit == 3
    assert "sk-or" not in repr(created)
    assert keys.get(created.info.hash) == created.info
    assert [k.name for k in keys.list()] == ["argusic-run:L:c1:r1"]
    assert model_call(stand_in, secret) == 200
    assert keys.delete(created.info.hash) is True
    assert keys.delete(created.info.hash) is False  # already gone is what was wanted
    assert keys.get(created.info.hash) is None
    assert list(keys.list()) == []
    assert model_call(stand_in, secret) == 401


def test_the_limit_is_the_provider_s(keys: OpenRouterKeys, stand_in: KeyStandIn) -> None:
    secret = keys.create("k", 0.5, later()).secret.reveal()
    assert [model_call(stand_in, secret) for _ in range(3)] == [200, 200, 402]


def test_an_expired_key_answers_401(keys: OpenRouterKeys, stand_in: KeyStandIn) -> None:
    secret = keys.create("k", 3, later(1)).secret.reveal()
    assert model_call(stand_in, secret) == 200
    time.sleep(1.2)
    assert model_call(stand_in, secret) == 401


def test_listing_pages_by_100(keys: OpenRouterKeys) -> None:
    for n in range(205):
        keys.create(f"k{n}", 3, later())
    assert len({k.hash for k in keys.list()}) == 205


def test_the_api_refuses_a_wrong_token(stand_in: KeyStandIn) -> None:
    client = OpenRouterKeys(stand_in.url, Secret("wrong"), timeout=2)
    with pytest.raises(KeyProviderError, match="HTTP 401"):
        client.create("k", 3, later())


@pytest.mark.parametrize(
    ("switch", "value", "says"),
    [
        ("fail_create", 500, "HTTP 500"),
        ("refuse", True, "HTTP 503"),
        ("create_delay", 3, "in time"),
    ],
)
def test_creation_fails_closed_within_its_bound(
    keys: OpenRouterKeys, stand_in: KeyStandIn, switch: str, value: object, says: str
) -> None:
    setattr(stand_in.switches, switch, value)
    began = time.monotonic()
    with pytest.raises(KeyProviderError, match=says) as failure:
        keys.create("k", 3, later())
    assert time.monotonic() - began < 2.9
    assert TOKEN not in str(failure.value)


def test_slow_deletion_is_bounded(keys: OpenRouterKeys, stand_in: KeyStandIn) -> None:
    created = keys.create("k", 3, later())
    stand_in.switches.delete_delay = 3
    with pytest.raises(KeyProviderError, match="in time"):
        keys.delete(created.info.hash)


def test_switches_over_http(stand_in: KeyStandIn, keys: OpenRouterKeys) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    response = httpx.post(
        f"{stand_in.url.removesuffix('/api/v1')}/_stand-in/switches",
        json={"fail_create": 429},
        headers=headers,
    )
    assert response.json()["fail_create"] == 429
    with pytest.raises(KeyProviderError, match="HTTP 429"):
        keys.create("k", 3, later())


def test_expires_at_must_be_utc(stand_in: KeyStandIn) -> None:
    response = httpx.post(
        f"{stand_in.url}/keys",
        headers={"Authorization": f"Bearer {TOKEN}"},
        json={"name": "k", "limit": 3, "expires_at": "2030-01-01T00:00:00+02:00"},
    )
    assert response.status_code == 400
