"""The ledger in PostgreSQL through psycopg 3, on eventsourcing's PostgreSQL datastore."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from eventsourcing.persistence import OperationalError
from eventsourcing.postgres import PostgresDatastore
from psycopg import Connection, Cursor
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier
from psycopg_pool import PoolTimeout

from ledger.batch import Batch, NodeRow
from ledger.migrations import Migration
from ledger.sealing import Checkpoint
from ledger.store import LedgerRecorder

_MIGRATION_LOCK = 0x61726775  # pg_advisory_xact_lock key: "argu"


RECONNECT_SECONDS = 5.0
"""How long the pool keeps trying to replace a lost connection in the background, its waits
doubling from 1 s; then a reader waiting for one starts a new attempt. So a server recovers
within seconds of the database's return, however long it was away (psycopg_pool's default,
five minutes, lets the waits grow to minutes)."""


class PostgresLedgerDatastore(PostgresDatastore):
    """eventsourcing's datastore, with every connection's search_path set to the schema and
    lost connections replaced soon after the database is back; a reader's connections are
    read-only sessions, as a hot standby's are."""

    def __init__(self, *args: Any, read_only: bool = False, **kwargs: Any) -> None:
        self.read_only = read_only
        super().__init__(*args, **kwargs)
        self.pool.reconnect_timeout = RECONNECT_SECONDS

    def after_connect_func(self) -> Callable[[Connection[Any]], None]:
        configure = super().after_connect_func()
        set_path = SQL("SET search_path TO {}").format(Identifier(self.schema))
        read_only = self.read_only

        def after_connect(conn: Connection[Any]) -> None:
            configure(conn)
            conn.execute(set_path)
            if read_only:
                conn.execute("SET default_transaction_read_only = on")

        return after_connect


@cache
def _psycopg(sql: str) -> bytes:
    """The shared SQL with psycopg's placeholders (none of it holds a literal `?`)."""
    return sql.replace("?", "%s").encode()


class PostgresLedgerRecorder(LedgerRecorder):
    dialect = "postgresql"

    datastore: PostgresLedgerDatastore

    @contextmanager
    def _write_transaction(self) -> Iterator[Cursor[Any]]:
        # Pipelined: BEGIN, the inserts and COMMIT go in one round trip, and the server stores
        # the events while the tree is being extended. Errors surface when the pipeline syncs.
        with self.datastore.get_connection() as conn, conn.pipeline(), conn.transaction():
            yield conn.cursor(row_factory=tuple_row)

    @contextmanager
    def _batch_transaction(self) -> Iterator[Cursor[Any]]:
        # `_insert_batch` is one statement, so it is a transaction of its own: no BEGIN and
        # COMMIT to send, and the statement goes out at once, before the pipeline syncs.
        with self.datastore.get_connection() as conn, conn.pipeline():
            yield conn.cursor(row_factory=tuple_row)

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._query(sql, params)
        except OperationalError as e:
            if isinstance(e.__cause__, PoolTimeout):
                raise  # no connection to be had: the database is away
            # A restarted server leaves the pool's idle connections dead: a read is safe to
            # ask again once they are checked (the dead ones dropped, new ones opened).
            self.datastore.pool.check()
            return self._query(sql, params)

    def _query(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self.datastore.get_connection() as conn:
            # Binary results: bytea arrives as it is stored, not as hex text to decode.
            cursor = conn.cursor(binary=True, row_factory=tuple_row)
            cursor.execute(_psycopg(sql), params, prepare=True)
            return cursor.fetchall()

    def _execute(self, cursor: Cursor[Any], sql: str, params: Sequence[Any] = ()) -> None:
        cursor.execute(_psycopg(sql), params, prepare=True)

    # --- schema ---

    def _has_table(self, name: str) -> bool:
        return self._fetchall("SELECT to_regclass(?)", (name,))[0][0] is not None

    def _apply_migration(self, migration: Migration) -> bool:
        with self.datastore.get_connection() as conn, conn.transaction():
            cursor = conn.cursor(row_factory=tuple_row)
            cursor.execute(
                SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(self.datastore.schema))
            )
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            if not self._claim_migration(cursor, migration):
                return False
            cursor.execute(migration.sql.encode())
        return True

    # --- writing ---

    def _insert_batch(
        self,
        cursor: Cursor[Any],
        batch: Batch,
        nodes: list[NodeRow],
        checkpoint: Checkpoint,
    ) -> None:
        # One statement: the events, the nodes and the checkpoint sealing them, each insert a
        # part of it, so all are stored or none (a taken position, stream version or
        # predecessor refuses the whole statement). Positions and each event's SHA-256 are
        # computed by the server, in C, from the bytes it stores.
        streams, versions, types, canonicals = zip(*batch.entries, strict=True)
        levels, indexes, node_hashes = zip(*nodes, strict=True) if nodes else ((), (), ())
        cursor.execute(
            "WITH events AS (INSERT INTO ledger_events"
            " SELECT %b + n, stream, version, type, canonical, sha256(canonical)"
            " FROM unnest(%b::text[], %b::bigint[], %b::text[], %b::bytea[])"
            " WITH ORDINALITY AS batch(stream, version, type, canonical, n)),"
            " nodes AS (INSERT INTO ledger_merkle_nodes"
            " SELECT * FROM unnest(%b::smallint[], %b::bigint[], %b::bytea[]))"
            " INSERT INTO ledger_checkpoints VALUES (%b, %b, %b, %b, %b, %b)",
            (
                batch.head.size,
                list(streams),
                list(versions),
                list(types),
                list(canonicals),
                list(levels),
                list(indexes),
                list(node_hashes),
                *checkpoint.row(),
            ),
            prepare=True,
        )
