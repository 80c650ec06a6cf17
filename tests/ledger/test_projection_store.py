"""Where the read models are stored: PostgreSQL compresses them with lz4 where it can."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql

from api.wiring import Settings
from ledger.ledger import Ledger


def _lz4_supported(conn: psycopg.Connection[tuple[object, ...]]) -> bool:
    """Whether this server can compress with lz4 (14 and later, built with it)."""
    try:
        with conn.transaction():
            conn.execute("SET LOCAL default_toast_compression = lz4")
    except psycopg.Error:
        return False
    return True


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_read_models_are_compressed_with_lz4_where_the_server_can(
    ledger: Ledger, settings: Settings
) -> None:
    model = b'{"runs": {}}' * 100_000  # over the 2 KB past which a value is compressed
    ledger.recorder.save_projection("methodology.test", 0, model)
    assert ledger.recorder.load_projection("methodology.test") == (0, model)
    base, _, schema = settings.database_url.partition("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        method = conn.execute(
            "SELECT pg_column_compression(model) FROM projection_state WHERE name = %s",
            ("methodology.test",),
        ).fetchone()
        expected = "lz4" if _lz4_supported(conn) else "pglz"
    assert method == (expected,)
