"""`audit bundle FIGURE --out DIR`: a public figure with everything an auditor needs to
recompute it offline: the events it depends on, each with its inclusion proof against one
signed checkpoint (the one sealed with the approval that published it), the ledger's key, the
operators' keys and approvals (`python -m ledger.offline_verify bundle DIR` checks it)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from domain.errors import InvalidInput
from domain.state.figures import leaderboard_figure, parse_figure, run_figure, siiq_figure
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from ledger.export import proved_line
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection
from projections.runner import ReadModel
from projections.siiq import SiiqProjection

OPERATOR_TYPES = frozenset(
    {"OperatorActed", "OperatorRegistered", "OperatorRevoked", "PublicationApproved"}
)
"""Who may act, what they signed, and what they approved: in every bundle."""
METHODOLOGY_TYPES = frozenset(
    {
        "EditionDrafted",
        "RunRecorded",
        "RunVoided",
        "RerunRequested",
        "ProjectReviewCleared",
        "ProjectReviewed",
        "AgentRegistered",
        "CycleOpened",
        "CycleClosed",
        "DisputeOpened",
        "DisputeResolved",
    }
)
"""Every fact a run's or a leaderboard's figure is folded from."""
SIIQ_TYPES = frozenset({"SiiqInputsRecorded", "CalibrationAccepted", "CalibrationRejected"})


class BundleReport(msgspec.Struct, frozen=True, kw_only=True):
    figure: str
    approved: int
    checkpoint: int
    events: int
    out: str


def _value(kind: str, name: str, ledger: Ledger, approved: int) -> object:
    if kind == "siiq":
        siiq = ReadModel(ledger, SiiqProjection()).as_of(approved)
        return siiq_figure(siiq.inputs, siiq.in_force, name)
    state: Methodology = public_state(ReadModel(ledger, MethodologyProjection()).as_of(approved))
    return run_figure(state, name) if kind == "run" else leaderboard_figure(state, name)


def write_bundle(figure: str, ledger: Ledger, state: Methodology, out: Path) -> BundleReport:
    """The figure as the public sees it, with its events proved against the checkpoint sealed
    with the latest approval."""
    kind, name = parse_figure(figure)
    approval = state.published()
    if approval is None:
        raise InvalidInput("nothing is published yet: an operator approves a position first")
    value = _value(kind, name, ledger, approval.position)
    checkpoint = ledger.checkpoint(approval.at)
    figure_types = SIIQ_TYPES if kind == "siiq" else METHODOLOGY_TYPES
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with (out / "events.jsonl").open("wb") as events:
        for row in ledger.rows(0, checkpoint.size):
            wanted = row.type in OPERATOR_TYPES or (
                row.type in figure_types and row.position <= approval.position
            )
            if not wanted:
                continue
            events.write(proved_line(ledger, row, checkpoint.size))
            count += 1
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
