"""`argusic ledger verify`: recompute every hash, node, root and signature from the stored
events alone, and name the first position that does not hold."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import msgspec

from ledger import codec
from ledger.batch import KEEP_FROM_LEVEL, StoredRow
from ledger.ledger import Ledger
from ledger.merkle import extend, leaf_hash, root_from_frontier
from ledger.sealing import Checkpoint


class Problem(msgspec.Struct, frozen=True):
    position: int
    reason: str


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    size: int
    root: str
    first_bad_position: int | None
    checkpoints_checked: int
    problems: list[Problem]


def row_problem(row: StoredRow, expected_position: int) -> str | None:
    """Why a stored event is not what was appended at `expected_position`, if it is not."""
    position, stream, version, type_, canonical, digest = row
    if position != expected_position:
        return f"event {expected_position} is missing"
    if codec.sha256(canonical) != digest:
        return f"event {position}: its bytes do not match its SHA-256"
    try:
        header = codec.decode_header(canonical)
    except msgspec.DecodeError:
        return f"event {position}: its bytes are not an event envelope"
    if (header.stream, header.version, header.type) != (stream, version, type_):
        return f"event {position}: stream, version or type columns differ from its bytes"
    return None


class _Walk:
    """The tree rebuilt leaf by leaf, checked against stored nodes and checkpoints."""

    def __init__(self, ledger: Ledger, checkpoints: Iterator[Checkpoint]) -> None:
        self.check_seal = ledger.recorder.sealer.check
        self.nodes = {(level, idx): h for level, idx, h in ledger.recorder.select_nodes()}
        self.checkpoints = checkpoints
        self.next_checkpoint = next(checkpoints, None)
        self.size, self.frontier = 0, list[bytes]()
        self.problems: list[Problem] = []
        self.checked = 0
        self.last_sealed: int | None = None

    def add(self, leaves: list[bytes]) -> None:
        while leaves:
            boundary = self.next_checkpoint.size if self.next_checkpoint else None
            take = len(leaves) if boundary is None else min(len(leaves), boundary - self.size)
            self.size, self.frontier, completed = extend(
                self.size, self.frontier, leaves[:take], KEEP_FROM_LEVEL
            )
            leaves = leaves[take:]
            for level, idx, node in completed:
                if self.nodes.pop((level, idx), None) != node:
                    self.flag(
                        (idx + 1) << level, f"Merkle node ({level}, {idx}) is wrong or missing"
                    )
            self.check_checkpoints()

    def check_checkpoints(self) -> None:
        while self.next_checkpoint and self.next_checkpoint.size <= self.size:
            checkpoint = self.next_checkpoint
            if checkpoint.previous != self.last_sealed:
                self.flag(
                    checkpoint.size, f"checkpoint {checkpoint.size} does not extend the last one"
                )
            elif reason := self.check_seal(checkpoint):
                self.flag(checkpoint.size, reason)
            elif checkpoint.root != root_from_frontier(self.frontier):
                self.flag(
                    checkpoint.size, f"checkpoint {checkpoint.size}: root differs from the events"
                )
            self.checked += 1
            self.last_sealed = checkpoint.size
            self.next_checkpoint = next(self.checkpoints, None)

    def finish(self, events_ok: bool) -> None:
        self.check_checkpoints()
        for checkpoint in ([self.next_checkpoint] if self.next_checkpoint else []) + list(
            self.checkpoints
        ):
            if events_ok:
                self.flag(
                    self.size + 1, f"checkpoint {checkpoint.size} covers events that are missing"
                )
            self.checked += 1
        for level, idx in sorted(self.nodes):
            self.flag((idx + 1) << level, f"Merkle node ({level}, {idx}) has no events under it")

    def flag(self, position: int, reason: str) -> None:
        self.problems.append(Problem(position, reason))


def verify(ledger: Ledger, progress: Callable[[int], None] | None = None) -> VerifyReport:
    """Check every stored event, Merkle node and checkpoint; report the first bad position."""
    walk = _Walk(ledger, _checkpoints(ledger))
    expected, events_ok = 1, True
    batch: list[bytes] = []
    for row in ledger.rows():
        if reason := row_problem(row, expected):
            walk.flag(expected, reason)
            events_ok = False
            break
        batch.append(leaf_hash(row.canonical))
        expected += 1
        if len(batch) == 10_000:
            walk.add(batch)
            batch = []
            if progress:
                progress(expected - 1)
    walk.add(batch)
    walk.finish(events_ok)
    head = ledger.recorder.checkpoint()
    head_size = head.size if head else 0
    if walk.size > head_size:
        walk.flag(head_size + 1, f"events {head_size + 1}..{walk.size} are under no checkpoint")
    problems = sorted(walk.problems, key=lambda p: p.position)
    return VerifyReport(
        ok=not problems,
        size=head_size,
        root=root_from_frontier(walk.frontier).hex(),
        first_bad_position=problems[0].position if problems else None,
        checkpoints_checked=walk.checked,
        problems=problems,
    )


def _checkpoints(ledger: Ledger) -> Iterator[Checkpoint]:
    after = -1
    while page := ledger.recorder.select_checkpoints(after, 1000):
        yield from page
        after = page[-1].size
