"""The storage contract every ledger backend keeps, and the SQL both backends share, written
once here.

A backend is an `eventsourcing` application recorder (stream = originator id, per-stream
version, topic = event type, state = canonical bytes, notification id = position) that also:

- gives each event the next position, with no gaps: positions are the primary key, and each
  checkpoint names its predecessor, which only one checkpoint may do, so of two writers
  extending the same head the database lets one through;
- stores the SHA-256 of each event's canonical bytes beside them;
- extends the Merkle tree from the last checkpoint's frontier, stores the perfect subtrees
  from `KEEP_FROM_LEVEL` up, and seals a signed checkpoint, all in the batch's transaction;
- refuses a batch whole when any (stream, version) or position is taken (`IntegrityError`);
- translates its driver's errors into eventsourcing's persistence errors.

Queries are written with `?` placeholders; a backend whose driver spells them otherwise
translates them in `_fetchall` and `_execute`, its only two ways to run SQL text.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    Notification,
    OperationalError,
    StoredEvent,
    Subscription,
)

from ledger.batch import Batch, Entry, NodeRow, StoredRow
from ledger.migrations import Migration, MigrationError, migrations
from ledger.sealing import Checkpoint, Sealer


class HeadMoved(Exception):
    """The ledger grew past the head an append was judged against: nothing was appended."""


MAX_ATTEMPTS = 100
IN_LIST = 500
"""Values bound in one `IN (...)` list, well under every SQLite build's variable limit."""

_EVENT_ROW = -1
"""The level `merkle_inputs` gives an event's row, below every Merkle node's."""
_ROW = "SELECT position, stream, version, type, canonical, hash FROM ledger_events "
_CHECKPOINT = "SELECT size, previous, root, note, sealed_at, frontier FROM ledger_checkpoints "
INSERT_CHECKPOINT = "INSERT INTO ledger_checkpoints VALUES (?, ?, ?, ?, ?, ?)"
CREATE_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS schema_migrations "
    "(version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL)"
)


def _bytes(value: bytes | memoryview | str) -> bytes:
    # SQLite keeps whatever storage class a writer gave; a BLOB rewritten as TEXT still
    # has to be hashed as the bytes it holds.
    return value.encode() if isinstance(value, str) else bytes(value)


def stored_row(r: Sequence[Any]) -> StoredRow:
    return StoredRow(r[0], r[1], r[2], r[3], _bytes(r[4]), _bytes(r[5]))


def _marks(count: int, mark: str = "?") -> str:
    return ", ".join([mark] * count)


class LedgerRecorder(ApplicationRecorder, ABC):
    dialect: ClassVar[str]

    datastore: Any
    """The backend's eventsourcing datastore: its connections (and their pool)."""

    def __init__(self, datastore: Any, sealer: Sealer) -> None:
        self.datastore = datastore
        self.sealer = sealer
        self._head: Checkpoint | None = None  # a hint only: the database has the last word

    def close(self) -> None:
        """Release the database connections."""
        self.datastore.close()

    @abstractmethod
    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one query in its own read transaction."""

    @abstractmethod
    def _execute(self, cursor: Any, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement in a write transaction."""

    @abstractmethod
    def _write_transaction(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction, committed when the block ends without an exception."""

    # --- schema ---

    def migrations(self) -> list[Migration]:
        return migrations(self.dialect)

    def pending_migrations(self) -> list[Migration]:
        """Migrations not applied yet; an applied file that changed since is an error."""
        applied = self._applied_migrations()
        for migration in self.migrations():
            if applied.get(migration.version, migration.sha256) != migration.sha256:
                raise MigrationError(f"migration {migration.name} changed after it was applied")
        return [m for m in self.migrations() if m.version not in applied]

    def migrate(self) -> list[str]:
        """Apply the pending migrations in order; return the names applied."""
        return [m.name for m in self.pending_migrations() if self._apply_migration(m)]

    def _applied_migrations(self) -> dict[int, str]:
        if not self._has_table("schema_migrations"):
            return {}
        return dict(self._fetchall("SELECT version, sha256 FROM schema_migrations"))

    @abstractmethod
    def _has_table(self, name: str) -> bool: ...

    @abstractmethod
    def _apply_migration(self, migration: Migration) -> bool:
        """Run one migration and record it in one transaction; False if another process did."""

    def _claim_migration(self, cursor: Any, migration: Migration) -> bool:
        """In the migration's own transaction, record it as applied, unless another process
        already did (False); its statements then run in that same transaction."""
        self._execute(cursor, CREATE_MIGRATIONS)
        self._execute(
            cursor, "SELECT 1 FROM schema_migrations WHERE version = ?", [migration.version]
        )
        if cursor.fetchone():
            return False
        self._execute(
            cursor,
            "INSERT INTO schema_migrations VALUES (?, ?, ?)",
            (migration.version, migration.name, migration.sha256),
        )
        return True

    # --- writing ---

    def append(self, entries: Sequence[Entry], after: int | None = None) -> Checkpoint:
        """Append a batch atomically and return the checkpoint sealed with it.

        Optimistic: the batch extends the last head this recorder saw. If another writer
        extended the ledger first, the database refuses the batch (its positions or its
        checkpoint's predecessor are taken) and it is rebuilt on the new head; with `after`,
        the batch goes right after that position or nowhere (`HeadMoved`): what was judged
        against the ledger up to it is appended only while nothing came in between.
        """
        return self.append_batches([entries], after)

    def append_batches(
        self, batches: Iterable[Sequence[Entry]], after: int | None = None
    ) -> Checkpoint:
        """Append batches in order, each as `append` would: atomically, with its checkpoint.

        Each batch's Merkle nodes and signature are computed, and the next batch taken and
        prepared, while the database stores its events. The first batch refused stops the
        rest; the ones before it stay. Empty batches are passed over.
        """
        upcoming = (entries for entries in batches if entries)
        first = next(upcoming, None)
        if first is None:
            raise ValueError("nothing to append")
        head = self._head or self.head()
        if after is not None and head.size != after:
            head = self.head()  # the hint may be behind the database, or ahead of the caller
            if head.size != after:
                raise HeadMoved(f"the ledger is at {head.size}, not {after}")
        batch: Batch | None = Batch(head, first, self.sealer)
        while batch is not None:
            batch = self._commit(batch, upcoming, after)
            after = None
        return self._head or self.head()

    def _commit(
        self, batch: Batch, upcoming: Iterator[Sequence[Entry]], after: int | None
    ) -> Batch | None:
        """Store a batch in one transaction, rebuilding it while the head moves (unless it
        must go right `after` a position); return the next batch, prepared on top of it
        meanwhile."""
        following: Sequence[Entry] | None = None
        for _ in range(MAX_ATTEMPTS):
            try:
                with self._batch_transaction() as cursor:
                    nodes, checkpoint = batch.sealed()
                    self._insert_batch(cursor, batch, nodes, checkpoint)
                    # the next batch is taken and prepared while the database stores this one
                    following = following or next(upcoming, None)
                    successor = (
                        None if following is None else Batch(checkpoint, following, self.sealer)
                    )
                    if successor is not None:
                        successor.sealed()
            except IntegrityError:
                latest = self.head()
                if latest.size == batch.head.size:
                    raise  # the head did not move: a (stream, version) is taken
                if after is not None and latest.size != after:
                    raise HeadMoved(f"the ledger is at {latest.size}, not {after}") from None
                batch = batch.rebased(latest)
                continue
            self._head = checkpoint
            return successor
        raise OperationalError(f"the ledger moved under {MAX_ATTEMPTS} attempts to append")

    def seal_empty(self) -> Checkpoint:
        """Seal the checkpoint of the empty tree, once, so every append has a head to extend."""
        existing = self.checkpoint()
        if existing is not None:
            return existing
        checkpoint = self.sealer.seal(0, [], previous=None)
        try:
            with self._write_transaction() as cursor:
                self._insert_checkpoint(cursor, checkpoint)
        except IntegrityError:
            return self.head()  # another process sealed it first
        return checkpoint

    def head(self) -> Checkpoint:
        """The latest checkpoint, read from the database."""
        head = self.checkpoint()
        if head is None:
            raise RuntimeError("the ledger has no checkpoint: run `argusic init` first")
        return head

    def _batch_transaction(self) -> contextlib.AbstractContextManager[Any]:
        """Where `_insert_batch` runs: a write transaction, unless the backend's one statement
        is a transaction of its own."""
        return self._write_transaction()

    @abstractmethod
    def _insert_batch(
        self, cursor: Any, batch: Batch, nodes: list[NodeRow], checkpoint: Checkpoint
    ) -> None:
        """Store a batch: its events (`batch.rows()`, or their columns with the SHA-256 of
        each computed by the database), its completed Merkle nodes and its checkpoint."""

    def _insert_checkpoint(self, cursor: Any, checkpoint: Checkpoint) -> None:
        self._execute(cursor, INSERT_CHECKPOINT, checkpoint.row())

    def register_key(self, verifier_key: str, registered_at: str) -> None:
        with self._write_transaction() as cursor:
            self._execute(
                cursor,
                "INSERT INTO ledger_keys VALUES (?, ?) ON CONFLICT DO NOTHING",
                (verifier_key, registered_at),
            )

    def registered_keys(self) -> list[str]:
        return [r[0] for r in self._fetchall("SELECT verifier_key FROM ledger_keys")]

    # --- reading ---

    def select_rows(self, after: int, upto: int | None, limit: int) -> list[StoredRow]:
        """Events with after < position <= upto, in position order, at most `limit`."""
        return [stored_row(r) for r in self.select_tuples(after, upto, limit)]

    def select_tuples(self, after: int, upto: int | None, limit: int) -> list[tuple[Any, ...]]:
        """`select_rows` as the driver returns them (bytes columns may be other types)."""
        # Positions have no gaps, so an upper bound is a row count: the query stays a plain
        # walk along the primary key, whatever the planner's statistics say.
        if upto is not None:
            limit = min(limit, upto - after)
        if limit <= 0:
            return []
        rows = self._fetchall(_ROW + "WHERE position > ? ORDER BY position LIMIT ?", (after, limit))
        return [r for r in rows if upto is None or r[0] <= upto]

    def select_stream(self, stream: str) -> list[StoredRow]:
        rows = self._fetchall(_ROW + "WHERE stream = ? ORDER BY version", (stream,))
        return [stored_row(r) for r in rows]

    def stream_versions(self, streams: Iterable[str]) -> dict[str, int]:
        """The last version of each stream that has events (a stream absent has none)."""
        names = sorted(set(streams))
        found: dict[str, int] = {}
        for i in range(0, len(names), IN_LIST):
            chunk = names[i : i + IN_LIST]
            found.update(
                self._fetchall(
                    "SELECT stream, max(version) FROM ledger_events "
                    f"WHERE stream IN ({_marks(len(chunk))}) GROUP BY stream",
                    chunk,
                )
            )
        return found

    def select_stream_heads(self, upto: int, after: int = 0) -> list[tuple[str, int, bytes]]:
        """Each stream's last version among the events up to `upto`, with that event's hash: of
        the streams with events after `after`."""
        rows = self._fetchall(
            "SELECT e.stream, e.version, e.hash FROM ledger_events e JOIN ("
            "SELECT stream, max(version) AS version FROM ledger_events "
            "WHERE position > ? AND position <= ? GROUP BY stream"
            ") h ON e.stream = h.stream AND e.version = h.version",
            (after, upto),
        )
        return [(stream, version, _bytes(hash_)) for stream, version, hash_ in rows]

    def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        """The checkpoint of that size, or the latest one."""
        if size is None:
            rows = self._fetchall(_CHECKPOINT + "ORDER BY size DESC LIMIT 1")
        else:
            rows = self._fetchall(_CHECKPOINT + "WHERE size = ?", (size,))
        return Checkpoint.from_row(rows[0]) if rows else None

    def checkpoint_before(self, size: int) -> Checkpoint | None:
        """The latest checkpoint of at most `size` events."""
        rows = self._fetchall(_CHECKPOINT + "WHERE size <= ? ORDER BY size DESC LIMIT 1", (size,))
        return Checkpoint.from_row(rows[0]) if rows else None

    def select_typed(self, types: Iterable[str], after: int, upto: int) -> list[tuple[int, bytes]]:
        """Position and canonical bytes of the events of `types` with after < position <= upto,
        in position order (a scan: for the few rows of rare types)."""
        names = sorted(types)
        rows = self._fetchall(
            f"SELECT position, canonical FROM ledger_events WHERE type IN ({_marks(len(names))}) "
            "AND position > ? AND position <= ? ORDER BY position",
            [*names, after, upto],
        )
        return [(position, _bytes(canonical)) for position, canonical in rows]

    def select_checkpoints(self, after: int, limit: int) -> list[Checkpoint]:
        """Checkpoints with size > after, in size order."""
        rows = self._fetchall(_CHECKPOINT + "WHERE size > ? ORDER BY size LIMIT ?", (after, limit))
        return [Checkpoint.from_row(r) for r in rows]

    def merkle_inputs(
        self, nodes: Sequence[tuple[int, int]], leaves: Sequence[tuple[int, int]]
    ) -> tuple[dict[tuple[int, int], bytes], list[tuple[int, bytes]]]:
        """The stored Merkle nodes at these (level, index) keys, by key, and the position and
        canonical bytes of the events with leaf indexes in these [start, end) ranges, in one
        read: a proof asks for both, and each round trip costs a server more than the rows.
        Nodes by a list of primary-key equalities (against a VALUES list PostgreSQL scans
        the whole table); events by one index range each."""
        parts: list[str] = []
        params: list[int] = []
        if nodes:
            parts.append(
                "SELECT level, idx, hash FROM ledger_merkle_nodes WHERE "
                + " OR ".join(["(level = ? AND idx = ?)"] * len(nodes))
            )
            params.extend(value for key in nodes for value in key)
        for start, end in leaves:
            parts.append(
                f"SELECT {_EVENT_ROW}, position, canonical FROM ledger_events "
                "WHERE position > ? AND position <= ?"
            )
            params.extend((start, end))
        if not parts:
            return {}, []
        found: dict[tuple[int, int], bytes] = {}
        events: list[tuple[int, bytes]] = []
        for level, idx, value in self._fetchall(" UNION ALL ".join(parts), params):
            if level == _EVENT_ROW:
                events.append((idx, _bytes(value)))
            else:
                found[level, idx] = _bytes(value)
        return found, events

    def select_nodes(self, level: int, first: int, last: int) -> list[NodeRow]:
        """The stored Merkle nodes of one level with first <= index <= last."""
        rows = self._fetchall(
            "SELECT level, idx, hash FROM ledger_merkle_nodes WHERE level = ? AND idx >= ? "
            "AND idx <= ? ORDER BY idx",
            (level, first, last),
        )
        return [(level, idx, _bytes(h)) for level, idx, h in rows]

    def count_rows(self) -> int:
        return int(self._fetchall("SELECT count(*) FROM ledger_events")[0][0])

    # --- materialised read models ---

    def load_projection(self, name: str) -> tuple[int, bytes] | None:
        rows = self._fetchall(
            "SELECT position, model FROM projection_state WHERE name = ?", (name,)
        )
        return (rows[0][0], _bytes(rows[0][1])) if rows else None

    def save_projection(self, name: str, position: int, model: bytes) -> None:
        """Store a read model and the position it was applied up to, in one transaction."""
        with self._write_transaction() as cursor:
            self._execute(
                cursor,
                "INSERT INTO projection_state VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET position = excluded.position, model = excluded.model",
                (name, position, model),
            )

    # --- the eventsourcing recorder contract, on top of the above ---

    def insert_events(self, stored_events: Sequence[StoredEvent], **_: Any) -> Sequence[int]:
        checkpoint = self.append(
            [
                Entry(str(e.originator_id), e.originator_version, e.topic, e.state)
                for e in stored_events
            ]
        )
        return list(range(checkpoint.size - len(stored_events) + 1, checkpoint.size + 1))

    def select_events(
        self,
        originator_id: Any,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        rows = [
            r
            for r in self.select_stream(str(originator_id))
            if (gt is None or r.version > gt) and (lte is None or r.version <= lte)
        ]
        if desc:
            rows.reverse()
        return [StoredEvent(r.stream, r.version, r.type, r.canonical) for r in rows[:limit]]

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        after = 0 if start is None else start - 1 if inclusive_of_start else start
        found: list[Notification] = []
        while len(found) < limit:
            rows = self.select_rows(after, stop, limit)
            found += [
                Notification(
                    id=r.position,
                    originator_id=r.stream,
                    originator_version=r.version,
                    topic=r.type,
                    state=r.canonical,
                )
                for r in rows
                if not topics or r.type in topics
            ]
            if len(rows) < limit:
                break
            after = rows[-1].position
        return found[:limit]

    def max_notification_id(self) -> int | None:
        head = self.checkpoint()
        return head.size if head is not None and head.size else None

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Subscription[Any]:
        msg = "follow the ledger by pulling: projections.runner polls select_rows"
        raise NotImplementedError(msg)
