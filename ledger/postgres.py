"""The ledger in PostgreSQL through psycopg 3, on eventsourcing's PostgreSQL datastore."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from eventsourcing.postgres import PostgresDatastore
from psycopg import Connection, Cursor
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from ledger.sealing import Checkpoint
from ledger.store import LedgerRecorder, Migration, NodeRow, Row

_ROW = "SELECT position, stream, version, type, canonical, hash FROM ledger_events "
_CHECKPOINT = "SELECT size, previous, root, note, sealed_at, frontier FROM ledger_checkpoints "
_MIGRATION_LOCK = 0x61726775  # pg_advisory_xact_lock key: "argu"
_PAGE = 10_000


class PostgresLedgerDatastore(PostgresDatastore):
    """eventsourcing's datastore, with every connection's search_path set to the schema."""

    def after_connect_func(self) -> Callable[[Connection[Any]], None]:
        configure = super().after_connect_func()
        set_path = SQL("SET search_path TO {}").format(Identifier(self.schema))

        def after_connect(conn: Connection[Any]) -> None:
            configure(conn)
            conn.execute(set_path)

        return after_connect


def _row(r: Sequence[Any]) -> Row:
    return (r[0], r[1], r[2], r[3], bytes(r[4]), bytes(r[5]))


class PostgresLedgerRecorder(LedgerRecorder):
    dialect = "postgresql"

    def __init__(self, datastore: PostgresLedgerDatastore, sealer: Any) -> None:
        super().__init__(sealer)
        self.datastore = datastore

    def close(self) -> None:
        self.datastore.close()

    @contextmanager
    def _transaction(self) -> Iterator[Cursor[Any]]:
        with self.datastore.get_connection() as conn, conn.transaction():
            yield conn.cursor(row_factory=tuple_row)

    @contextmanager
    def _write_transaction(self) -> Iterator[Cursor[Any]]:
        # Pipelined: BEGIN, the inserts and COMMIT go in one round trip, and the server stores
        # the events while the tree is being extended. Errors surface when the pipeline syncs.
        with self.datastore.get_connection() as conn, conn.pipeline(), conn.transaction():
            yield conn.cursor(row_factory=tuple_row)

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self.datastore.get_connection() as conn:
            # Binary results: bytea arrives as it is stored, not as hex text to decode.
            cursor = conn.cursor(binary=True, row_factory=tuple_row)
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchall()

    # --- schema ---

    def _applied_migrations(self) -> dict[int, str]:
        if self._fetchall("SELECT to_regclass('schema_migrations')")[0][0] is None:
            return {}
        return dict(self._fetchall("SELECT version, sha256 FROM schema_migrations"))

    def _apply_migration(self, migration: Migration) -> bool:
        with self._transaction() as cursor:
            schema = Identifier(self.datastore.schema)
            cursor.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema))
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            cursor.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
                "name text NOT NULL, sha256 text NOT NULL)"
            )
            cursor.execute(
                "SELECT 1 FROM schema_migrations WHERE version = %s", (migration.version,)
            )
            if cursor.fetchone():
                return False
            cursor.execute(migration.sql.encode())
            cursor.execute(
                "INSERT INTO schema_migrations VALUES (%s, %s, %s)",
                (migration.version, migration.name, migration.sha256),
            )
        return True

    # --- writing ---

    def _insert_events(self, cursor: Cursor[Any], events: list[Row]) -> None:
        # Positions run on from the first one, so they need not travel as an array.
        _, streams, versions, types, canonicals, hashes = zip(*events, strict=True)
        cursor.execute(
            "INSERT INTO ledger_events SELECT %b + n - 1, stream, version, type, canonical, hash"
            " FROM unnest(%b::text[], %b::bigint[], %b::text[], %b::bytea[], %b::bytea[])"
            " WITH ORDINALITY AS batch(stream, version, type, canonical, hash, n)",
            (
                events[0][0],
                list(streams),
                list(versions),
                list(types),
                list(canonicals),
                list(hashes),
            ),
            prepare=True,
        )

    def _insert_seal(
        self, cursor: Cursor[Any], nodes: list[NodeRow], checkpoint: Checkpoint
    ) -> None:
        if nodes:
            cursor.execute(
                "INSERT INTO ledger_merkle_nodes SELECT * FROM unnest("
                "%b::smallint[], %b::bigint[], %b::bytea[])",
                [list(column) for column in zip(*nodes, strict=True)],
                prepare=True,
            )
        cursor.execute(
            "INSERT INTO ledger_checkpoints VALUES (%b, %b, %b, %b, %b, %b)",
            checkpoint.row(),
            prepare=True,
        )

    def register_key(self, verifier_key: str, registered_at: str) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                "INSERT INTO ledger_keys VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (verifier_key, registered_at),
            )

    def registered_keys(self) -> list[str]:
        return [r[0] for r in self._fetchall("SELECT verifier_key FROM ledger_keys")]

    # --- reading ---

    def select_rows(self, after: int, upto: int | None, limit: int) -> list[Row]:
        # Positions have no gaps, so an upper bound is a row count: the query stays a plain
        # walk along the primary key, whatever the planner's statistics say.
        if upto is not None:
            limit = min(limit, upto - after)
        if limit <= 0:
            return []
        rows = self._fetchall(
            _ROW + "WHERE position > %s ORDER BY position LIMIT %s", (after, limit)
        )
        return [_row(r) for r in rows if upto is None or r[0] <= upto]

    def select_stream(self, stream: str) -> list[Row]:
        return [
            _row(r) for r in self._fetchall(_ROW + "WHERE stream = %s ORDER BY version", (stream,))
        ]

    def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        if size is None:
            rows = self._fetchall(_CHECKPOINT + "ORDER BY size DESC LIMIT 1")
        else:
            rows = self._fetchall(_CHECKPOINT + "WHERE size = %s", (size,))
        return Checkpoint.from_row(rows[0]) if rows else None

    def select_checkpoints(self, after: int, limit: int) -> list[Checkpoint]:
        rows = self._fetchall(
            _CHECKPOINT + "WHERE size > %s ORDER BY size LIMIT %s", (after, limit)
        )
        return [Checkpoint.from_row(r) for r in rows]

    def node_hashes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        if not keys:
            return {}
        levels, indexes = zip(*keys, strict=True)
        rows = self._fetchall(
            "SELECT n.level, n.idx, n.hash FROM ledger_merkle_nodes n "
            "JOIN unnest(%s::smallint[], %s::bigint[]) AS k(level, idx) USING (level, idx)",
            (list(levels), list(indexes)),
        )
        return {(level, idx): bytes(h) for level, idx, h in rows}

    def select_nodes(self) -> Iterator[NodeRow]:
        last = (-1, -1)
        while True:
            rows = self._fetchall(
                "SELECT level, idx, hash FROM ledger_merkle_nodes WHERE (level, idx) > (%s, %s) "
                "ORDER BY level, idx LIMIT %s",
                (*last, _PAGE),
            )
            yield from ((level, idx, bytes(h)) for level, idx, h in rows)
            if len(rows) < _PAGE:
                return
            last = rows[-1][:2]

    def count_rows(self) -> int:
        return int(self._fetchall("SELECT count(*) FROM ledger_events")[0][0])

    # --- materialised read models ---

    def load_projection(self, name: str) -> tuple[int, bytes] | None:
        rows = self._fetchall(
            "SELECT position, model FROM projection_state WHERE name = %s", (name,)
        )
        return (rows[0][0], bytes(rows[0][1])) if rows else None

    def save_projection(self, name: str, position: int, model: bytes) -> None:
        with self._transaction() as cursor:
            cursor.execute(
                "INSERT INTO projection_state VALUES (%s, %s, %s) ON CONFLICT (name) DO UPDATE "
                "SET position = excluded.position, model = excluded.model",
                (name, position, model),
            )
