"""Fixtures of the end-to-end API tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.wiring import Argusic, Settings
from ledger.ledger import Ledger
from tests.api.world import World


@pytest.fixture
def world(ledger: Ledger, tmp_path: Path) -> World:
    return World(ledger, tmp_path)


@pytest.fixture
def public(world: World, settings: Settings) -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The public API over the world's ledger (a module's own `world` if it has one)."""
    with TestClient(app=create_app(Argusic(settings, world.ledger))) as client:
        yield client
