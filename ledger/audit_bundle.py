"""`python -m ledger.offline_verify bundle DIR`: an audit bundle checked with no database and no
network: the checkpoint's signature, every event's hash and inclusion proof, every operator's
signature against the keys the bundle's own events register, the approval that published the
figure, and the figure itself recomputed from the events with the domain's own rules.

Unlike the rest of the offline verifier this needs the project's `domain` package (the rules)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec

from domain.events import (
    CalibrationAccepted,
    DomainEvent,
    OperatorActed,
    PublicationApproved,
    SiiqInputsRecorded,
)
from domain.events.operators import AddOperator
from domain.state.figures import leaderboard_figure, parse_figure, run_figure, siiq_figure
from domain.state.fold import apply
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from ledger import codec
from ledger.actions import signature_holds
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


def _events(folder: Path, head: CheckpointBody) -> list[tuple[int, DomainEvent]]:
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
        events.append((position, envelope.event))
    return events


def _signatures(events: list[tuple[int, DomainEvent]]) -> PublicationApproved:
    """Every signed action verifies with the key registered before it (the first owner with
    its own); the last approval is returned."""
    state, approval = Methodology(), None
    for position, event in events:
        if isinstance(event, OperatorActed) and not _signed_by_its_key(event, state):
            raise BundleFailed(f"action at {position}: {event.operator}'s signature does not hold")
        if isinstance(event, PublicationApproved):
            approval = event
        apply(state, position, event)
    if approval is None:
        raise BundleFailed("no approval: the figure was never published")
    return approval


def _signed_by_its_key(event: OperatorActed, state: Methodology) -> bool:
    """The key registered before it (the first owner signs its own registration)."""
    action, key = event.action, state.operators.get(event.key_id)
    if key is not None:
        return signature_holds(event, key.public_key)
    if state.operators or not isinstance(action, AddOperator):
        return False
    return signature_holds(event, action.public_key)


def _recompute(kind: str, name: str, events: list[tuple[int, DomainEvent]], upto: int) -> Any:
    if kind == "siiq":
        inputs = in_force = None
        for position, event in events:
            if position <= upto and isinstance(event, SiiqInputsRecorded):
                inputs = event
            if position <= upto and isinstance(event, CalibrationAccepted):
                in_force = event
        return siiq_figure(inputs, in_force, name)
    state = Methodology()
    for position, event in events:
        if position <= upto:
            apply(state, position, event)
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
    approval = _signatures(events)
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
