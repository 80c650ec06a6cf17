"""The ledger on a PostgreSQL hot standby (scripts/ensure-standby.sh): it follows the primary
within the replication lag, verifies there, and refuses every write."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest
from eventsourcing.persistence import InternalError
from psycopg import sql

from api.wiring import Settings, init, open_ledger
from ledger.ledger import Ledger
from ledger.verify import verify
from tests.conftest import PRIMARY_URL, STANDBY_URL, append_editions

LAG = 30.0
"""Seconds a standby on the same machine may take to show what the primary committed."""


def caught_up(standby: Ledger, size: int) -> bool:
    deadline = time.monotonic() + LAG
    while standby.size() < size:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_standby_replicates_the_ledger_and_refuses_writes(
    replicated_schema: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    primary, _ = init(Settings(f"{PRIMARY_URL}?schema={replicated_schema}", home, "json"))
    append_editions(primary, 0, 5)
    standby = open_ledger(Settings(f"{STANDBY_URL}?schema={replicated_schema}", home, "json"))
    try:
        assert caught_up(standby, primary.size())
        assert standby.checkpoint() == primary.checkpoint()
        assert verify(standby).ok
        append_editions(primary, 5, 3)
        assert caught_up(standby, primary.size())
        assert standby.checkpoint() == primary.checkpoint()
        with pytest.raises(InternalError, match="read-only transaction"):
            append_editions(standby, 8, 1)
        with (
            psycopg.connect(STANDBY_URL, autocommit=True) as conn,
            pytest.raises(psycopg.errors.ReadOnlySqlTransaction),
        ):
            conn.execute(
                sql.SQL("CREATE TABLE {}.refused (n int)").format(sql.Identifier(replicated_schema))
            )
        assert standby.size() == primary.size() == 8
    finally:
        standby.close()
        primary.close()
