"""The storage contract every ledger backend keeps, written once here.

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
"""

from __future__ import annotations

import contextlib
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    Notification,
    OperationalError,
    StoredEvent,
    Subscription,
)

from domain.errors import IntegrityFailure
from ledger.codec import sha256
from ledger.merkle import extend, leaf_hash
from ledger.sealing import Checkpoint, Sealer

MAX_ATTEMPTS = 100
KEEP_FROM_LEVEL = 4
"""Merkle nodes are stored from 16-leaf subtrees up; smaller ones are hashed from the leaves."""

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"

Entry = tuple[str, int, str, bytes]
"""An event to append: stream, version, type, canonical bytes."""

Row = tuple[int, str, int, str, bytes, bytes]
"""A stored event: position, stream, version, type, canonical bytes, SHA-256."""

NodeRow = tuple[int, int, bytes]


class _Batch:
    """A batch on top of `head`: its rows at once, its Merkle nodes and checkpoint on demand."""

    def __init__(self, head: Checkpoint, entries: Sequence[Entry], sealer: Sealer) -> None:
        if not entries:
            raise ValueError("nothing to append")
        self.head, self.entries, self.sealer = head, entries, sealer
        self.events = [
            (head.size + i, stream, version, type_, canonical, sha256(canonical))
            for i, (stream, version, type_, canonical) in enumerate(entries, 1)
        ]
        self._sealed: tuple[list[NodeRow], Checkpoint] | None = None

    def sealed(self) -> tuple[list[NodeRow], Checkpoint]:
        """The completed Merkle nodes and the signed checkpoint, computed once."""
        if self._sealed is None:
            leaves = [leaf_hash(canonical) for _, _, _, canonical in self.entries]
            start = self.head.size
            size, frontier, nodes = extend(
                start, self.head.frontier_hashes(), leaves, KEEP_FROM_LEVEL
            )
            self._sealed = nodes, self.sealer.seal(size, frontier, previous=start)
        return self._sealed

    def rebased(self, head: Checkpoint) -> _Batch:
        return _Batch(head, self.entries, self.sealer)


class Migration:
    """One ordered SQL file of `migrations/<dialect>/`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.version = int(path.name.split("_", 1)[0])
        self.name = path.stem
        self.sql = path.read_text()
        self.sha256 = hashlib.sha256(self.sql.encode()).hexdigest()


class MigrationError(IntegrityFailure):
    """An applied migration file was changed afterwards."""


class LedgerRecorder(ApplicationRecorder, ABC):
    dialect: ClassVar[str]

    def __init__(self, sealer: Sealer) -> None:
        self.sealer = sealer
        self._head: Checkpoint | None = None  # a hint only: the database has the last word

    @abstractmethod
    def close(self) -> None:
        """Release the database connections."""

    # --- schema ---

    def migrations(self) -> list[Migration]:
        paths = sorted((MIGRATIONS / self.dialect).glob("[0-9]*_*.sql"))
        return [Migration(p) for p in paths]

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

    @abstractmethod
    def _applied_migrations(self) -> dict[int, str]:
        """Version and SHA-256 of each applied migration; empty before the first."""

    @abstractmethod
    def _apply_migration(self, migration: Migration) -> bool:
        """Run one migration and record it in one transaction; False if another process did."""

    # --- writing ---

    def append(self, entries: Sequence[Entry]) -> Checkpoint:
        """Append a batch atomically and return the checkpoint sealed with it.

        Optimistic: the batch extends the last head this recorder saw. If another writer
        extended the ledger first, the database refuses the batch (its positions or its
        checkpoint's predecessor are taken) and it is rebuilt on the new head.
        """
        return self.append_batches([entries])

    def append_batches(self, batches: Iterable[Sequence[Entry]]) -> Checkpoint:
        """Append batches in order, each as `append` would: atomically, with its checkpoint.

        Each batch's Merkle nodes and signature are computed, and the next batch taken and
        prepared, while the database stores its events. The first batch refused stops the
        rest; the ones before it stay. Empty batches are passed over.
        """
        upcoming = (entries for entries in batches if entries)
        first = next(upcoming, None)
        if first is None:
            raise ValueError("nothing to append")
        batch: _Batch | None = _Batch(self._head or self.head(), first, self.sealer)
        while batch is not None:
            batch = self._commit(batch, upcoming)
        return self._head or self.head()

    def _commit(self, batch: _Batch, upcoming: Iterator[Sequence[Entry]]) -> _Batch | None:
        """Store a batch in one transaction, rebuilding it while the head moves; return the
        next batch, prepared on top of it meanwhile."""
        following: Sequence[Entry] | None = None
        for _ in range(MAX_ATTEMPTS):
            try:
                with self._write_transaction() as cursor:
                    self._insert_events(cursor, batch.events)
                    nodes, checkpoint = batch.sealed()  # while the database stores the events
                    self._insert_seal(cursor, nodes, checkpoint)
                    following = following or next(upcoming, None)
                    successor = (
                        None if following is None else _Batch(checkpoint, following, self.sealer)
                    )
                    if successor is not None:
                        successor.sealed()
            except IntegrityError:
                latest = self.head()
                if latest.size == batch.head.size:
                    raise  # the head did not move: a (stream, version) is taken
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
                self._insert_seal(cursor, [], checkpoint)
        except IntegrityError:
            return self.head()  # another process sealed it first
        return checkpoint

    def head(self) -> Checkpoint:
        """The latest checkpoint, read from the database."""
        head = self.checkpoint()
        if head is None:
            raise RuntimeError("the ledger has no checkpoint: run `argusic init` first")
        return head

    @abstractmethod
    def _write_transaction(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction, committed when the block ends without an exception."""

    @abstractmethod
    def _insert_events(self, cursor: Any, events: list[Row]) -> None: ...

    @abstractmethod
    def _insert_seal(self, cursor: Any, nodes: list[NodeRow], checkpoint: Checkpoint) -> None:
        """Store the batch's completed Merkle nodes and its checkpoint."""

    @abstractmethod
    def register_key(self, verifier_key: str, registered_at: str) -> None: ...

    @abstractmethod
    def registered_keys(self) -> list[str]: ...

    # --- reading ---

    @abstractmethod
    def select_rows(self, after: int, upto: int | None, limit: int) -> list[Row]:
        """Events with after < position <= upto, in position order, at most `limit`."""

    @abstractmethod
    def select_stream(self, stream: str) -> list[Row]: ...

    @abstractmethod
    def checkpoint(self, size: int | None = None) -> Checkpoint | None:
        """The checkpoint of that size, or the latest one."""

    @abstractmethod
    def select_checkpoints(self, after: int, limit: int) -> list[Checkpoint]:
        """Checkpoints with size > after, in size order."""

    @abstractmethod
    def node_hashes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]: ...

    @abstractmethod
    def select_nodes(self) -> Iterator[NodeRow]:
        """Every stored Merkle node, in no particular order."""

    @abstractmethod
    def count_rows(self) -> int: ...

    # --- materialised read models ---

    @abstractmethod
    def load_projection(self, name: str) -> tuple[int, bytes] | None: ...

    @abstractmethod
    def save_projection(self, name: str, position: int, model: bytes) -> None:
        """Store a read model and the position it was applied up to, in one transaction."""

    # --- the eventsourcing recorder contract, on top of the above ---

    def insert_events(self, stored_events: Sequence[StoredEvent], **_: Any) -> Sequence[int]:
        checkpoint = self.append(
            [(str(e.originator_id), e.originator_version, e.topic, e.state) for e in stored_events]
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
            if (gt is None or r[2] > gt) and (lte is None or r[2] <= lte)
        ]
        if desc:
            rows.reverse()
        return [StoredEvent(r[1], r[2], r[3], r[4]) for r in rows[:limit]]

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
                    id=r[0], originator_id=r[1], originator_version=r[2], topic=r[3], state=r[4]
                )
                for r in rows
                if not topics or r[3] in topics
            ]
            if len(rows) < limit:
                break
            after = rows[-1][0]
        return found[:limit]

    def max_notification_id(self) -> int | None:
        head = self.checkpoint()
        return head.size if head is not None and head.size else None

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Subscription[Any]:
        msg = "follow the ledger by pulling: projections.runner polls select_rows"
        raise NotImplementedError(msg)
