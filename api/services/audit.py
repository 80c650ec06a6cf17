"""`audit bundle FIGURE --out DIR`: a public figure with everything an auditor needs to
recompute it offline: every event of the streams it is folded from (the operators' keys, actions
and approvals among them), each with its inclusion proof against one signed checkpoint (the one
sealed with the approval that published it), and the proof that no event of those streams is
left out (`ledger.heads_map`). `python -m ledger.offline_verify bundle DIR --key KEY` checks it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from domain.errors import InvalidInput
from domain.events import StreamHeadsCommitted
from domain.state.figures import (
    FIGURE_STREAMS,
    Kind,
    parse_figure,
    public_figure,
    siiq_figure,
)
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from domain.state.records import Approval
from ledger import codec
from ledger.export import proved_line
from ledger.heads_map import Head, selects, span
from ledger.ledger import Ledger
from ledger.sealing import Checkpoint
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from projections.siiq import SiiqProjection

COMMITTED_WITHIN = 8
"""An approval's commitment is among the few facts recorded with it."""


class BundleReport(msgspec.Struct, frozen=True, kw_only=True):
    figure: str
    approved: int
    checkpoint: int
    events: int
    out: str


def _value(kind: Kind, name: str, ledger: Ledger, approved: int) -> object:
    if kind == "siiq":
        siiq = ReadModel(ledger, SiiqProjection()).as_of(approved)
        return siiq_figure(siiq.accepted_inputs, siiq.in_force, name)
    state: Methodology = public_state(ReadModel(ledger, MethodologyProjection()).as_of(approved))
    return public_figure(state, kind, name)


def write_bundle(figure: str, ledger: Ledger, state: Methodology, out: Path) -> BundleReport:
    """The figure as the public sees it: every event of the streams it is folded from up to the
    size the latest approval committed their heads at, with the proofs of those heads, and the
    approval's own events; each event proved against the checkpoint sealed with the approval."""
    kind, name = parse_figure(figure)
    approval = state.published()
    if approval is None:
        raise InvalidInput("nothing is published yet: an operator approves a position first")
    value = _value(kind, name, ledger, approval.position)
    committed_at, commitment = _commitment(ledger, approval)
    checkpoint = _sealed_with(ledger, committed_at)
    heads = ledger.stream_heads(commitment.size)
    proofs = {selection: _selection(heads, selection) for selection in FIGURE_STREAMS[kind]}
    streams = {
        stream
        for selection, proof in proofs.items()
        for stream, _, _ in proof["heads"]
        if selects(selection, stream)  # not the neighbours
    }
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with (out / "events.jsonl").open("wb") as events:
        for row in ledger.rows(0, checkpoint.size):
            if row.position > commitment.size or row.stream in streams:
                events.write(proved_line(ledger, row, checkpoint.size))
                count += 1
    (out / "heads.json").write_text(json.dumps(proofs, indent=1))
    (out / "checkpoint.json").write_text(
        json.dumps(
            {
                "size": checkpoint.size,
                "root": checkpoint.root.hex(),
                "note": checkpoint.note,
                "public_key": str(ledger.recorder.sealer.verifier),
            },
            indent=1,
        )
    )
    document = {"figure": figure, "approved": approval.position, "events": count, "value": value}
    (out / "figure.json").write_bytes(msgspec.json.format(msgspec.json.encode(document)))
    return BundleReport(
        figure=figure,
        approved=approval.position,
        checkpoint=checkpoint.size,
        events=count,
        out=str(out),
    )


def _commitment(ledger: Ledger, approval: Approval) -> tuple[int, StreamHeadsCommitted]:
    """The approval's commitment to the streams' heads, recorded right after it, and where."""
    window = ledger.recorder.select_typed(
        {"StreamHeadsCommitted"}, approval.at, approval.at + COMMITTED_WITHIN
    )
    for position, canonical in window:
        event = codec.decode(canonical).event
        if isinstance(event, StreamHeadsCommitted) and event.position == approval.position:
            return position, event
    raise InvalidInput(
        f"the approval of {approval.position} commits to no stream heads (it was made before "
        "bundles proved completeness): an operator approves a later position"
    )


def _sealed_with(ledger: Ledger, position: int) -> Checkpoint:
    """The checkpoint sealed with the batch that holds `position`."""
    return ledger.recorder.select_checkpoints(position - 1, 1)[0]


def _selection(heads: list[Head], selection: str) -> dict[str, Any]:
    """The streams of `selection` with a neighbour each side, and the proof of that range."""
    first, given, proof = span(heads, selection)
    return {
        "first": first,
        "heads": [[h.stream, h.version, h.hash.hex()] for h in given],
        "proof": [h.hex() for h in proof],
    }
