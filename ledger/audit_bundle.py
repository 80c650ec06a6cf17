"""`python -m ledger.offline_verify bundle DIR`: an audit bundle checked with no database and no
network: the checkpoint's signature, every event's hash and inclusion proof, every operator's
signature against the keys the bundle's own events register, the approval that published the
figure, and the figure itself recomputed from the events with the domain's own rules.

Unlike the rest of the offline verifier this needs the project's `domain` package (the rules)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from domain.events import (
    CalibrationAccepted,
    DomainEvent,
    SiiqInputsRecorded,
)
from domain.state.figures import leaderboard_figure, parse_figure, run_figure, siiq_figure
from domain.state.fold import apply
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from domain.state.records import Approval
from ledger import codec
from ledger.actions import SIGNATURES
from ledger.decisions import Decisions
from ledger.merkle import ProofError, leaf_hash, verify_inclusion
from ledger.note import CheckpointBody, NoteError, Verifier, open_checkpoint
from ledger.offline_verify import Failed, export_entry


class BundleFailed(Exception):
    """Something in the bundle does not hold; the message names it."""


def _checkpoint(folder: Path, key: str | None) -> tuple[CheckpointBody, str]:
    document = _json(folder, "checkpoint.json")
    verifier = Verifier.parse(key or document["public_key"])
    try:
        return open_checkpoint(document["note"], verifier), str(verifier)
    except NoteError as e:
        raise BundleFailed(f"checkpoint: {e}") from e


def _json(folder: Path, name: str) -> Any:
    try:
        return json.loads((folder / name).read_text())
    except ValueError as e:
        raise BundleFailed(f"{name} is not whole JSON ({e}): the bundle is damaged") from e


Recorded = tuple[int, datetime, DomainEvent]
"""An event of the bundle: its position, when it was appended, the event."""


def _events(folder: Path, head: CheckpointBody) -> list[Recorded]:
    """Each event whose bytes give its hash and whose proof leads to the checkpoint's root."""
    events = []
    lines = (folder / "events.jsonl").read_text().splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        try:
            entry = export_entry(number, line)
        except Failed as e:
            raise BundleFailed(f"events.jsonl: {e}") from e
        position, canonical = entry["position"], entry["canonical"].encode()
        if hashlib.sha256(canonical).hexdigest() != entry["hash"]:
            raise BundleFailed(f"event {position}: its bytes do not match its hash")
        leaf = leaf_hash(canonical)
        path = [bytes.fromhex(h) for h in entry["path"]]
        try:
            verify_inclusion(position - 1, head.size, leaf, path, head.root)
        except ProofError as e:
            raise BundleFailed(f"event {position}: inclusion proof: {e}") from e
        envelope = codec.decode(canonical)
        if (envelope.stream, envelope.version) != (entry["stream"], entry["version"]):
            raise BundleFailed(f"event {position}: its columns differ from its bytes")
        events.append((position, envelope.recorded_at, envelope.event))
    return events


def _signatures(events: list[Recorded], origin: str) -> Approval:
    """Every signed action has authority as of its position (its key registered by a chain
    back to the first owner, for this ledger), and every decision is one such an action
    decided; the last approval is returned."""
    check = Decisions(origin, sealed=lambda _: True)  # the approval's checkpoint is checked below
    for position, appended_at, event in events:
        if reason := check.problem(position, appended_at, event):
            raise BundleFailed(reason)
    approval = check.authority.published()
    if approval is None:
        raise BundleFailed("no approval: the figure was never published")
    return approval


def _recompute(kind: str, name: str, events: list[Recorded], upto: int) -> Any:
    if kind == "siiq":
        inputs = in_force = None
        for position, _, event in events:
            if position <= upto and isinstance(event, SiiqInputsRecorded):
                inputs = event
            if position <= upto and isinstance(event, CalibrationAccepted):
                in_force = event
        return siiq_figure(inputs, in_force, name)
    state = Methodology()
    for position, appended_at, event in events:
        if position <= upto:
            apply(state, position, event, appended_at, SIGNATURES)
    state = public_state(state)
    return run_figure(state, name) if kind == "run" else leaderboard_figure(state, name)


def check_bundle(folder: Path, key: str | None = None) -> dict[str, Any]:
    """What the bundle proves, or BundleFailed naming the first thing that does not hold."""
    head, verifier = _checkpoint(folder, key)
    claimed = _json(folder, "figure.json")
    events = _events(folder, head)
    if len(events) != claimed["events"]:
        raise BundleFailed(
            f"events.jsonl holds {len(events)} events, the bundle {claimed['events']}: "
            "it is truncated"
        )
    approval = _signatures(events, head.origin)
    if approval.position != claimed["approved"]:
        raise BundleFailed(
            f"approval: the bundle's last approval is of {approval.position}, "
            f"the figure claims {claimed['approved']}"
        )
    kind, name = parse_figure(claimed["figure"])
    recomputed = msgspec.to_builtins(_recompute(kind, name, events, approval.position))
    if recomputed != claimed["value"]:
        raise BundleFailed(f"figure {claimed['figure']}: recomputed {json.dumps(recomputed)}")
    return {
        "ok": True,
        "figure": claimed["figure"],
        "value": recomputed,
        "approved": approval.position,
        "checkpoint": head.size,
        "events": len(events),
        "key": verifier,
    }
