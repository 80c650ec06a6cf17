"""The ledger in one SQLite file (the embedded default), on eventsourcing's SQLite datastore."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from eventsourcing.persistence import IntegrityError, OperationalError, PersistenceError
from eventsourcing.sqlite import SQLiteCursor, SQLiteDatastore

from ledger.sealing import Checkpoint, Sealer
from ledger.store import LedgerRecorder, Migration, NodeRow, Row

_ROW = "SELECT position, stream, version, type, canonical, hash FROM ledger_events "
_CHECKPOINT = "SELECT size, previous, root, note, sealed_at, frontier FROM ledger_checkpoints "
_CREATE_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS schema_migrations "
    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL)"
)


@contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except sqlite3.IntegrityError as e:
        raise IntegrityError(e) from e
    except sqlite3.OperationalError as e:
        raise OperationalError(e) from e
    except sqlite3.Error as e:
        raise PersistenceError(e) from e


def _bytes(value: bytes | str) -> bytes:
    # SQLite keeps whatever storage class a writer gave; a BLOB rewritten as TEXT still
    # has to be hashed as the bytes it holds.
    return value.encode() if isinstance(value, str) else value


def _row(r: Sequence[Any]) -> Row:
    return (r[0], r[1], r[2], r[3], _bytes(r[4]), _bytes(r[5]))


class SQLiteLedgerRecorder(LedgerRecorder):
    dialect = "sqlite"

    def __init__(self, datastore: SQLiteDatastore, sealer: Sealer) -> None:
        super().__init__(sealer)
        self.datastore = datastore

    def close(self) -> None:
        self.datastore.close()

    @contextmanager
    def _write_transaction(self) -> Iterator[SQLiteCursor]:
        # BEGIN IMMEDIATE takes the write lock first, so writers in other processes queue on
        # the busy timeout instead of failing on a stale snapshot. Foreign keys are enforced
        # per connection, and only outside a transaction can they be turned on.
        with self.datastore.get_connection(commit=True) as conn, _translated():
            cursor = conn.cursor()
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield cursor
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    @contextmanager
    def _read(self) -> Iterator[SQLiteCursor]:
        with self.datastore.transaction(commit=False) as cursor, _translated():
            yield cursor

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._read() as cursor:
            cursor.execute(sql, params)
            return [tuple(r) for r in cursor.fetchall()]

    # --- schema ---

    def _applied_migrations(self) -> dict[int, str]:
        if not self._fetchall("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'"):
            return {}
        return dict(self._fetchall("SELECT version, sha256 FROM schema_migrations"))

    def _apply_migration(self, migration: Migration) -> bool:
        with self._write_transaction() as cursor:
            cursor.execute(_CREATE_MIGRATIONS)
            cursor.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)
            )
            if cursor.fetchone():
                return False
            for statement in _statements(migration.sql):
                cursor.execute(statement)
            cursor.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                (migration.version, migration.name, migration.sha256),
            )
        return True

    # --- writing ---

    def _insert_events(self, cursor: SQLiteCursor, events: list[Row]) -> None:
        cursor.executemany("INSERT INTO ledger_events VALUES (?, ?, ?, ?, ?, ?)", events)

    def _insert_seal(
        self, cursor: SQLiteCursor, nodes: list[NodeRow], checkpoint: Checkpoint
    ) -> None:
        cursor.executemany("INSERT INTO ledger_merkle_nodes VALUES (?, ?, ?)", nodes)
        cursor.execute(
            "INSERT INTO ledger_checkpoints VALUES (?, ?, ?, ?, ?, ?)",
            checkpoint.row(),
        )

    def register_key(self, verifier_key: str, registered_at: str) -> None:
        with self._write_transaction() as cursor:
            cursor.execute(
                "INSERT INTO ledger_keys VALUES (?, ?) ON CONFLICT DO NOTHING",
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
        rows = self._fetchall(_ROW + "WHERE position > ? ORDER BY position LIMIT ?", (after, limit))
        return [_row(r) for r in rows if upto is None or r[0] <= upto]

    def select_stream(self, stream: str) -> list[Row]:
        return [
            _row(r) for r in self._fetchall(_ROW + "WHERE stream = ? ORDER BY version", (stream,))
        ]

    def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        if size is None:
            rows = self._fetchall(_CHECKPOINT + "ORDER BY size DESC LIMIT 1")
        else:
            rows = self._fetchall(_CHECKPOINT + "WHERE size = ?", (size,))
        return Checkpoint.from_row(rows[0]) if rows else None

    def select_checkpoints(self, after: int, limit: int) -> list[Checkpoint]:
        rows = self._fetchall(_CHECKPOINT + "WHERE size > ? ORDER BY size LIMIT ?", (after, limit))
        return [Checkpoint.from_row(r) for r in rows]

    def node_hashes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        found = {}
        for level, idx in keys:
            rows = self._fetchall(
                "SELECT hash FROM ledger_merkle_nodes WHERE level = ? AND idx = ?", (level, idx)
            )
            if rows:
                found[level, idx] = rows[0][0]
        return found

    def select_nodes(self) -> Iterator[NodeRow]:
        yield from self._fetchall("SELECT level, idx, hash FROM ledger_merkle_nodes")

    def count_rows(self) -> int:
        return int(self._fetchall("SELECT count(*) FROM ledger_events")[0][0])

    # --- materialised read models ---

    def load_projection(self, name: str) -> tuple[int, bytes] | None:
        rows = self._fetchall(
            "SELECT position, model FROM projection_state WHERE name = ?", (name,)
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def save_projection(self, name: str, position: int, model: bytes) -> None:
        with self._write_transaction() as cursor:
            cursor.execute(
                "INSERT INTO projection_state VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET position = excluded.position, model = excluded.model",
                (name, position, model),
            )


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (a trigger body ends with `END;`)."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current)
            current = ""
    return [s for s in statements if s.strip(" \n;")]
