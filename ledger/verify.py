"""`argusic ledger verify`: recompute every hash, node, root and signature from the stored
events alone, check that every decision had authority (`ledger.decisions`) and that every
approval's commitment to the streams' heads is theirs (`ledger.heads_map`), and name the first
position that does not hold.

A verify covers a range of positions that starts at a checkpoint: the tree is grown from that
checkpoint's frontier (whose signature and root are checked too), so ranges are independent
and can be checked in separate processes, each with its own connections. Every stored node
belongs to the range holding its last leaf, every checkpoint to the range holding its size,
so the ranges of a whole-ledger verify check everything exactly once.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import closing
from typing import Any

import msgspec

from domain.events import StreamHeadsCommitted
from ledger import codec
from ledger.batch import KEEP_FROM_LEVEL, StoredRow
from ledger.collector import collector_paused
from ledger.decisions import CHECKED_TYPES, decision_problems
from ledger.heads_map import Head, map_root
from ledger.ledger import Ledger, prefetched_pages
from ledger.merkle import extend, leaf_hash, root_from_frontier
from ledger.sealing import Checkpoint
from ledger.store import LedgerRecorder, stored_row

LEVELS = range(KEEP_FROM_LEVEL, 64)
LAST_INDEX = (1 << 63) - 1
_header = msgspec.json.Decoder(codec.Header).decode


class Problem(msgspec.Struct, frozen=True):
    position: int
    reason: str


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    size: int
    """The last position covered: the latest checkpoint's size, or the end of the range."""
    root: str
    first_bad_position: int | None
    checkpoints_checked: int
    problems: list[Problem]
    after: int = 0
    """The range covered starts after this position (a checkpoint's size)."""
    actions_checked: int = 0
    """The signed actions whose authority was checked (every one up to the range's end)."""


class _Part(msgspec.Struct, frozen=True):
    """What one range found: where its tree ended, what did not hold, and the events whose
    authority is checked once every range is (position and canonical bytes)."""

    size: int
    frontier: list[bytes]
    checked: int
    problems: list[Problem]
    decisions: list[tuple[int, bytes]] = []


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


def leaves(rows: list[tuple[Any, ...]], expected: int) -> tuple[list[bytes], Problem | None]:
    """The leaf hashes of a page of rows that hold, up to the first that does not."""
    sha256 = hashlib.sha256
    try:
        # The checks of `row_problem`, a column at a time; it names what failed once one does.
        positions, streams, versions, types, canonicals, digests = zip(*rows, strict=True)
        headers = [_header(c) for c in canonicals]
        holds = (
            positions == tuple(range(expected, expected + len(rows)))
            and [sha256(c).digest() for c in canonicals] == list(digests)
            and [h.stream for h in headers] == list(streams)
            and [h.version for h in headers] == list(versions)
            and [h.event.type for h in headers] == list(types)
        )
    except (msgspec.DecodeError, TypeError, ValueError):  # not an envelope, or not bytes
        holds = False
    if holds:
        return [sha256(b"\x00" + c).digest() for c in canonicals], None
    found: list[bytes] = []
    for row in rows:
        checked = stored_row(row)
        if reason := row_problem(checked, expected):
            return found, Problem(expected, reason)
        found.append(leaf_hash(checked.canonical))
        expected += 1
    return found, None


class _Walk:
    """The tree rebuilt leaf by leaf from a checkpoint, checked against the range's stored
    nodes and checkpoints."""

    def __init__(self, recorder: LedgerRecorder, start: Checkpoint | None, upto: int | None):
        self.sealer = recorder.sealer
        after = start.size if start else 0
        last = LAST_INDEX if upto is None else upto
        self.nodes = {
            (level, idx): h
            for level in LEVELS
            for level, idx, h in recorder.select_nodes(level, after >> level, (last >> level) - 1)
        }
        self.checkpoints = _checkpoints(recorder, after if start else -1, upto)
        self.next_checkpoint = next(self.checkpoints, None)
        self.size = after
        self.frontier = start.frontier_hashes() if start else []
        self.last_sealed = start.size if start else None
        self.problems: list[Problem] = []
        self.checked = 0
        if start is not None and (reason := self.sealer.check(start)):
            self.flag(start.size, reason)

    def add(self, leaves: list[bytes]) -> None:
        end, done = self.size + len(leaves), 0
        while done < len(leaves):
            upto = min(self.next_checkpoint.size, end) if self.next_checkpoint else end
            taken = leaves[done : done + max(upto - self.size, 0)]
            done += len(taken)
            self.size, self.frontier, completed = extend(
                self.size, self.frontier, taken, KEEP_FROM_LEVEL
            )
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
            elif reason := self.seal_problem(checkpoint):
                self.flag(checkpoint.size, reason)
            self.checked += 1
            self.last_sealed = checkpoint.size
            self.next_checkpoint = next(self.checkpoints, None)

    def seal_problem(self, checkpoint: Checkpoint) -> str | None:
        """Why a checkpoint does not seal the tree grown here. When its stored frontier and
        root are the ones grown, its frontier gives its root: only the note is left to check."""
        root = root_from_frontier(self.frontier)
        if checkpoint.root == root and checkpoint.frontier == b"".join(self.frontier):
            return self.sealer.check_note(checkpoint)
        if reason := self.sealer.check(checkpoint):
            return reason
        if checkpoint.root != root:
            return f"checkpoint {checkpoint.size}: root differs from the events"
        return None

    def finish(self, events_ok: bool, decisions: list[tuple[int, bytes]]) -> _Part:
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
        return _Part(self.size, self.frontier, self.checked, self.problems, decisions)

    def flag(self, position: int, reason: str) -> None:
        self.problems.append(Problem(position, reason))


@collector_paused()  # pages of rows, headers and hashes: millions of objects, no cycles
def verify_range(
    ledger: Ledger, after: int, upto: int | None, progress: Callable[[int], None] | None = None
) -> _Part:
    """Check the events after the checkpoint of size `after` (0: from the start) up to
    `upto` (None: the last one), with the nodes and checkpoints that fall among them."""
    recorder = ledger.recorder
    start = recorder.checkpoint(after) if after else None
    if after and start is None:
        raise ValueError(f"no checkpoint of size {after} to start from")
    walk = _Walk(recorder, start, upto)
    expected, problem = after + 1, None
    decisions: list[tuple[int, bytes]] = []
    # Each next page is read in a thread while this one is checked: the database and the
    # driver's wait overlap the hashing, which holds the interpreter.
    with closing(prefetched_pages(recorder.select_tuples, after, upto)) as pages:
        for page in pages:
            found, problem = leaves(page, expected)
            decisions += [(r[0], stored_row(r).canonical) for r in page if r[3] in CHECKED_TYPES]
            walk.add(found)
            expected += len(found)
            if progress:
                progress(expected - 1 - after)
            if problem is not None:
                break
    if problem is None and upto is not None and expected <= upto:
        problem = Problem(expected, f"event {expected} is missing")
    if problem is not None:
        walk.flag(problem.position, problem.reason)
    part = walk.finish(problem is None, decisions)
    if upto is None:
        head = recorder.checkpoint()
        head_size = head.size if head else 0
        if part.size > head_size:
            reason = f"events {head_size + 1}..{part.size} are under no checkpoint"
            part.problems.append(Problem(head_size + 1, reason))
    return part


def _verify_opened(opener: Callable[[], Ledger], after: int, upto: int | None) -> _Part:
    """A range checked in a worker process, on connections of its own."""
    ledger = opener()
    try:
        return verify_range(ledger, after, upto)
    finally:
        ledger.close()


def verify(
    ledger: Ledger,
    progress: Callable[[int], None] | None = None,
    *,
    after: int = 0,
    upto: int | None = None,
    workers: int = 1,
    opener: Callable[[], Ledger] | None = None,
) -> VerifyReport:
    """Check the stored events after `after` up to `upto` (every event by default), with the
    Merkle nodes and checkpoints among them; report the first bad position. The range starts
    at the latest checkpoint at or before `after`. With `opener`, up to `workers` processes
    each check a part of the range, split at checkpoints."""
    start = ledger.recorder.checkpoint_before(after) if after > 0 else None
    begin = start.size if start else 0
    ranges = _split(ledger.recorder, begin, upto, workers if opener else 1)
    if len(ranges) == 1:
        parts = [verify_range(ledger, begin, upto, progress)]
    else:
        parts = _in_processes(ranges, opener, progress)  # type: ignore[arg-type]
    actions, authority = _authority(ledger, begin, parts)
    heads = _commitments(ledger, begin, upto)
    found = [p for part in parts for p in part.problems] + authority + heads
    problems = sorted(dict.fromkeys(found), key=lambda p: p.position)
    head = ledger.recorder.checkpoint() if upto is None else None
    return VerifyReport(
        ok=not problems,
        size=upto if upto is not None else head.size if head else 0,
        root=root_from_frontier(parts[-1].frontier).hex(),
        first_bad_position=problems[0].position if problems else None,
        checkpoints_checked=sum(part.checked for part in parts),
        problems=problems,
        after=begin,
        actions_checked=actions,
    )


def _authority(ledger: Ledger, begin: int, parts: list[_Part]) -> tuple[int, list[Problem]]:
    """The authority of every decision up to the ranges' end, from the first event on: the
    ranges' own rows, after those of the events before them."""
    recorder = ledger.recorder
    rows = recorder.select_typed(CHECKED_TYPES, 0, begin) if begin else []
    rows += [row for part in parts for row in part.decisions]

    def sealed(size: int) -> bool:
        return recorder.checkpoint(size) is not None

    try:
        checked, found = decision_problems(rows, ledger.origin, sealed)
    except msgspec.DecodeError:  # not an event: already named by the ranges' checks
        return 0, []
    return checked, [Problem(position, reason) for position, reason in found]


def _commitments(ledger: Ledger, begin: int, upto: int | None) -> list[Problem]:
    """Each approval's commitment to the streams' heads in the range is the map of the stored
    events as of the size it names (`ledger.heads_map`); the heads are carried from one
    commitment to the next, each adding the streams that moved in between."""
    end = upto if upto is not None else ledger.size()
    heads: dict[str, Head] = {}
    known = 0
    problems = []
    for position, canonical in ledger.recorder.select_typed({"StreamHeadsCommitted"}, begin, end):
        try:
            said = codec.decode(canonical).event
        except msgspec.DecodeError:  # not an event: already named by the ranges' checks
            continue
        if not isinstance(said, StreamHeadsCommitted):
            continue
        size = min(said.size, position - 1)
        if size < known:  # only a commitment without authority goes back
            heads, known = {}, 0
        heads.update((h.stream, h) for h in ledger.stream_heads(size, after=known))
        known = size
        in_order = [heads[stream] for stream in sorted(heads)]
        if said.size >= position or (said.streams, said.root) != (
            len(in_order),
            map_root(in_order).hex(),
        ):
            reason = f"the streams' heads as of {said.size} are not the ones it commits to"
            problems.append(Problem(position, f"event {position}: {reason}"))
    return problems


def _split(
    recorder: LedgerRecorder, begin: int, upto: int | None, workers: int
) -> list[tuple[int, int | None]]:
    """(after, upto) ranges of about equal size, each starting at a checkpoint."""
    end = upto
    if end is None:
        head = recorder.checkpoint()
        end = head.size if head else 0
    cuts = [begin]
    for k in range(1, workers):
        ideal = begin + (end - begin) * k // workers
        at = recorder.checkpoint_before(ideal)
        if at is not None and cuts[-1] < at.size < end:
            cuts.append(at.size)
    return list(zip(cuts, [*cuts[1:], upto], strict=True))


def _in_processes(
    ranges: list[tuple[int, int | None]],
    opener: Callable[[], Ledger],
    progress: Callable[[int], None] | None,
) -> list[_Part]:
    # Forked, so a worker starts at once with the project imported; it opens connections of
    # its own and never touches the ones it inherited.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(len(ranges), mp_context=context) as pool:
        futures = {pool.submit(_verify_opened, opener, a, b): i for i, (a, b) in enumerate(ranges)}
        parts: list[_Part | None] = [None] * len(ranges)
        done = 0
        for future in as_completed(futures):
            part = future.result()
            parts[futures[future]] = part
            a = ranges[futures[future]][0]
            done += part.size - a
            if progress:
                progress(done)
    return [part for part in parts if part is not None]


def _checkpoints(recorder: LedgerRecorder, after: int, upto: int | None) -> Iterator[Checkpoint]:
    while page := recorder.select_checkpoints(after, 1000):
        for checkpoint in page:
            if upto is not None and checkpoint.size > upto:
                return
            yield checkpoint
        after = page[-1].size
