"""Fixtures of the end-to-end API tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.ledger import Ledger
from tests.api.world import World


@pytest.fixture
def world(ledger: Ledger, tmp_path: Path) -> World:
    return World(ledger, tmp_path)
