"""The ledger in one SQLite file (the embedded default), on eventsourcing's SQLite datastore."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eventsourcing.persistence import IntegrityError, OperationalError, PersistenceError
from eventsourcing.sqlite import SQLiteCursor, SQLiteDatastore

from ledger.batch import Batch, NodeRow
from ledger.migrations import Migration
from ledger.sealing import Checkpoint, Sealer
from ledger.store import LedgerRecorder

FILE_MODE = 0o600
"""Issue 26: the ledger's file (and SQLite's journal beside it) readable by its owner only."""


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


class SQLiteLedgerRecorder(LedgerRecorder):
    dialect = "sqlite"

    datastore: SQLiteDatastore

    def __init__(self, datastore: SQLiteDatastore, sealer: Sealer) -> None:
        super().__init__(datastore, sealer)
        if not datastore.pool.is_sqlite_memory_mode:
            _owner_only(Path(datastore.pool.db_name))

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

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.datastore.transaction(commit=False) as cursor, _translated():
            cursor.execute(sql, params)
            return [tuple(r) for r in cursor.fetchall()]

    def _execute(self, cursor: SQLiteCursor, sql: str, params: Sequence[Any] = ()) -> None:
        cursor.execute(sql, params)

    # --- schema ---

    def _has_table(self, name: str) -> bool:
        return bool(self._fetchall("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)))

    def _apply_migration(self, migration: Migration) -> bool:
        with self._write_transaction() as cursor:
            if not self._claim_migration(cursor, migration):
                return False
            for statement in _statements(migration.sql):
                cursor.execute(statement)
        return True

    # --- writing ---

    def _insert_batch(
        self,
        cursor: SQLiteCursor,
        batch: Batch,
        nodes: list[NodeRow],
        checkpoint: Checkpoint,
    ) -> None:
        cursor.executemany("INSERT INTO ledger_events VALUES (?, ?, ?, ?, ?, ?)", batch.rows())
        cursor.executemany("INSERT INTO ledger_merkle_nodes VALUES (?, ?, ?)", nodes)
        self._insert_checkpoint(cursor, checkpoint)


def _owner_only(path: Path) -> None:
    """The database file made (before SQLite makes it, which would be 0644 under the usual
    umask) or made again 0600, with its journal, write-ahead log and shared memory files:
    SQLite gives those its file's mode when it makes them."""
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, FILE_MODE))
    for file in (path, *(path.with_name(path.name + end) for end in ("-journal", "-wal", "-shm"))):
        if file.exists() and file.stat().st_mode & 0o777 != FILE_MODE:
            file.chmod(FILE_MODE)


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (a trigger body ends with `END;`)."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current)
            current = ""
    return [s for s in statements if s.strip(" \n;")]
