"""`python -m ledger.offline_verify bundle DIR --key KEY`: an audit bundle checked with no
database and no network, against the ledger's public key given by the auditor (never the one the
bundle carries): the checkpoint's signature; every event's hash and inclusion proof, each once,
in order; the authority of every decision (`ledger.decisions`); that the bundle holds every event
of the streams its figure is folded from (proved against the stream heads the approval committed
to, `ledger.heads_map`); and the figure itself, recomputed from the events with the domain's own
rules.

It needs the project's `domain` package (the rules) and nothing of the code that writes bundles.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from domain.events import (
    CalibrationAccepted,
    DomainEvent,
    SiiqInputsRecorded,
    StreamHeadsCommitted,
)
from domain.state.figures import (
    FIGURE_STREAMS,
    Kind,
    parse_figure,
    public_figure,
    siiq_figure,
)
from domain.state.fold import apply
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from domain.state.records import Approval
from ledger import codec
from ledger.actions import SIGNATURES
from ledger.decisions import Decisions
from ledger.heads_map import Head, Span, selected
from ledger.merkle import ProofError, leaf_hash, verify_inclusion
from ledger.note import CheckpointBody, NoteError, Verifier, open_checkpoint

KEY_NEEDED = (
    "give the ledger's public key with --key KEY or --key-file FILE, from somewhere other than "
    "the bundle (`argusic ledger public-key` on the ledger's machine, or where the ledger "
    "publishes it); --bundle-key checks the bundle against the key it carries, which shows only "
    "that the bundle agrees with itself"
)
OWN_KEY = (
    "checked against the key the bundle itself carries: this shows the bundle agrees with "
    "itself, not that it comes from the ledger you trust"
)


class BundleFailed(Exception):
    """Something in the bundle does not hold; the message names it."""


class Recorded(NamedTuple):
    """An event of the bundle, as its proved bytes say."""

    position: int
    stream: str
    version: int
    hash: bytes
    appended_at: datetime
    event: DomainEvent


def _json(folder: Path, name: str) -> Any:
    try:
        return json.loads((folder / name).read_text())
    except ValueError as e:
        raise BundleFailed(f"{name} is not whole JSON ({e}): the bundle is damaged") from e


def _checkpoint(folder: Path, key: str | None) -> tuple[CheckpointBody, str]:
    """The checkpoint, signed by `key` (None: the key the bundle carries)."""
    document = _json(folder, "checkpoint.json")
    carried = document["public_key"]
    if key is not None and carried != key:
        raise BundleFailed(
            f"checkpoint: the bundle is of the ledger with key {carried}, not of {key}"
        )
    verifier = Verifier.parse(carried)
    try:
        return open_checkpoint(document["note"], verifier), str(verifier)
    except NoteError as e:
        raise BundleFailed(f"checkpoint: {e}") from e


def _entry(number: int, line: str) -> Any:
    """One line of events.jsonl; a line cut short (every line ends with a newline) means the
    file was truncated."""
    if not line.endswith("\n"):
        raise BundleFailed(f"events.jsonl: line {number} is cut short: the file is truncated")
    try:
        return json.loads(line)
    except ValueError as e:
        raise BundleFailed(f"events.jsonl: line {number} is not a JSON line ({e})") from e


def _events(folder: Path, head: CheckpointBody) -> list[Recorded]:
    """Each event, once and in position order, whose bytes give its hash and whose proof leads
    to the checkpoint's root."""
    events: list[Recorded] = []
    lines = (folder / "events.jsonl").read_text().splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        entry = _entry(number, line)
        position, canonical = entry["position"], entry["canonical"].encode()
        if events and position <= events[-1].position:
            again = position == events[-1].position
            raise BundleFailed(
                f"event {position}: "
                + ("it is in the bundle twice" if again else "out of position order")
            )
        digest = hashlib.sha256(canonical).digest()
        if digest.hex() != entry["hash"]:
            raise BundleFailed(f"event {position}: its bytes do not match its hash")
        path = [bytes.fromhex(h) for h in entry["path"]]
        try:
            verify_inclusion(position - 1, head.size, leaf_hash(canonical), path, head.root)
        except ProofError as e:
            raise BundleFailed(f"event {position}: inclusion proof: {e}") from e
        envelope = codec.decode(canonical)
        if (envelope.stream, envelope.version) != (entry["stream"], entry["version"]):
            raise BundleFailed(f"event {position}: its columns differ from its bytes")
        events.append(
            Recorded(
                position,
                envelope.stream,
                envelope.version,
                digest,
                envelope.recorded_at,
                envelope.event,
            )
        )
    return events


def _approval(events: list[Recorded], origin: str) -> Approval:
    """Every signed action has authority as of its position (its key registered by a chain
    back to the first owner, for this ledger), and every decision is one such an action
    decided; the last approval is returned."""
    check = Decisions(origin, sealed=lambda _: True)  # the approval's checkpoint is checked below
    for position, _, _, _, appended_at, event in events:
        if reason := check.problem(position, appended_at, event):
            raise BundleFailed(reason)
    approval = check.authority.published()
    if approval is None:
        raise BundleFailed("no approval: the figure was never published")
    return approval


def _commitment(events: list[Recorded], approval: Approval) -> StreamHeadsCommitted:
    """The approval's commitment to the streams' heads (an authorized fact: `_approval` refused
    any other)."""
    for recorded in events:
        event = recorded.event
        if isinstance(event, StreamHeadsCommitted) and event.position == approval.position:
            return event
    raise BundleFailed(
        f"approval of {approval.position}: no commitment to the streams' heads in the bundle, "
        "so nothing shows it left no event out"
    )


def _heads(folder: Path, kind: Kind, commitment: StreamHeadsCommitted) -> dict[str, Head]:
    """Every stream the figure is folded from, with its head as the commitment says, from the
    bundle's range proofs of each selection."""
    proofs = _json(folder, "heads.json")
    root = bytes.fromhex(commitment.root)
    heads: dict[str, Head] = {}
    for selection in FIGURE_STREAMS[kind]:  # the verifier's own list, not the bundle's
        proof = proofs.get(selection)
        if proof is None:
            raise BundleFailed(f"heads.json: no proof of the streams {selection!r}")
        given = Span(
            proof["first"],
            [Head(s, v, bytes.fromhex(h)) for s, v, h in proof["heads"]],
            [bytes.fromhex(h) for h in proof["proof"]],
        )
        try:
            found = selected(selection, given, commitment.streams, root)
        except ProofError as e:
            raise BundleFailed(f"heads.json: {e}") from e
        heads.update((h.stream, h) for h in found)
    return heads


def _complete(events: list[Recorded], heads: dict[str, Head], size: int, checkpoint: int) -> None:
    """The bundle holds each of the figure's streams up to its committed head, every version
    once, and nothing else up to `size`; and every event after `size` up to the checkpoint
    (the approval's own)."""
    versions: dict[str, int] = {}
    for position, stream, version, digest, _, _ in events:
        if position > size:
            continue
        head = heads.get(stream)
        if head is None:
            raise BundleFailed(f"event {position}: stream {stream} is not one the figure reads")
        if version != versions.get(stream, 0) + 1:
            raise BundleFailed(
                f"event {position}: {stream} version {version} follows version "
                f"{versions.get(stream, 0)}: an event of the stream is left out"
            )
        versions[stream] = version
        if version == head.version and digest != head.hash:
            raise BundleFailed(f"event {position}: not the head of {stream} committed to")
    for stream, head in heads.items():
        if versions.get(stream, 0) != head.version:
            raise BundleFailed(
                f"stream {stream}: the bundle ends at version {versions.get(stream, 0)}, "
                f"the committed head is version {head.version}: events are left out"
            )
    after = [e.position for e in events if e.position > size]
    if after != list(range(size + 1, checkpoint + 1)):
        raise BundleFailed(
            f"events {size + 1}..{checkpoint} (the approval's) are not all in the bundle"
        )


def _recompute(kind: Kind, name: str, events: list[Recorded], upto: int) -> Any:
    if kind == "siiq":
        inputs = accepted = in_force = None
        for recorded in events:
            if recorded.position <= upto and isinstance(recorded.event, SiiqInputsRecorded):
                inputs = recorded.event
            if recorded.position <= upto and isinstance(recorded.event, CalibrationAccepted):
                in_force, accepted = recorded.event, inputs  # a rejection's inputs never count
        return siiq_figure(accepted, in_force, name)
    state = Methodology()
    for position, _, _, _, appended_at, event in events:
        if position <= upto:
            apply(state, position, event, appended_at, SIGNATURES)
    return public_figure(public_state(state), kind, name)


def check_bundle(folder: Path, key: str | None) -> dict[str, Any]:
    """What the bundle proves against the ledger key `key` (None: the bundle's own), or
    BundleFailed naming the first thing that does not hold."""
    head, verifier = _checkpoint(folder, key)
    claimed = _json(folder, "figure.json")
    events = _events(folder, head)
    if len(events) != claimed["events"]:
        raise BundleFailed(
            f"events.jsonl holds {len(events)} events, the bundle {claimed['events']}: "
            "it is truncated"
        )
    approval = _approval(events, head.origin)
    if approval.position != claimed["approved"]:
        raise BundleFailed(
            f"approval: the bundle's last approval is of {approval.position}, "
            f"the figure claims {claimed['approved']}"
        )
    kind, name = parse_figure(claimed["figure"])
    commitment = _commitment(events, approval)
    heads = _heads(folder, kind, commitment)
    _complete(events, heads, commitment.size, head.size)
    recomputed = msgspec.to_builtins(_recompute(kind, name, events, approval.position))
    if recomputed != claimed["value"]:
        raise BundleFailed(f"figure {claimed['figure']}: recomputed {json.dumps(recomputed)}")
    checked = {
        "ok": True,
        "figure": claimed["figure"],
        "value": recomputed,
        "approved": approval.position,
        "checkpoint": head.size,
        "events": len(events),
        "streams": len(heads),
        "key": verifier,
    }
    return checked | ({"warning": OWN_KEY} if key is None else {})


def main(argv: Sequence[str]) -> int:
    """`bundle DIR --key KEY | --key-file FILE | --bundle-key`: prints one JSON document; exit
    0 when the bundle holds, 3 when it does not, 2 on a usage error or a bundle not read."""
    parser = argparse.ArgumentParser(prog="python -m ledger.offline_verify bundle")
    parser.add_argument("folder", type=Path)
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--key", help="the ledger's public key (`argusic ledger public-key`)")
    keys.add_argument("--key-file", type=Path, help="a file holding the ledger's public key")
    keys.add_argument("--bundle-key", action="store_true", help="trust the bundle's own key")
    args = parser.parse_args(argv)
    if not (args.key or args.key_file or args.bundle_key):
        print(json.dumps({"ok": False, "error": KEY_NEEDED}))
        return 2
    try:
        key = args.key_file.read_text().strip() if args.key_file else args.key
        result = check_bundle(args.folder, key)
    except OSError as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 2
    except (BundleFailed, ValueError, KeyError, TypeError) as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 3
    print(json.dumps(result))
    return 0
