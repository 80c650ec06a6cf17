"""The sources projection: /status.json's sources and /data/evidence.jsonl folded from snapshot
events of the real Epoch exports (SI-IQ sections 1, 8 and 10)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from domain.events import AliasApproved, DomainEvent
from domain.events.operators import ApproveAlias
from domain.siiq.snapshots import snapshot_decision
from ledger.ledger import RecordedEvent
from projections.base import fold
from projections.siiq_sources import (
    SiiqSourcesProjection,
    Sources,
    current_intake,
    evidence_jsonl,
    status_document,
)
from tests.domain.test_siiq_snapshots import answer
from tests.signing import AT, Operator

THINKING = "Qwen3-235B-A22B-Thinking (Jul 2025)"


def recorded(events: Iterable[DomainEvent]) -> list[RecordedEvent]:
    return [
        RecordedEvent(
            position=i,
            stream=e.stream,
            version=1,
            recorded_at=AT,
            hash=b"",
            event=e,
        )
        for i, e in enumerate(events, start=1)
    ]


def history() -> list[DomainEvent]:
    """January's export, then April's, as two hourly fetches would record them."""
    jan = snapshot_decision(answer("jan"), None, None, set())
    known = {e.stream for e in jan.events}
    apr = snapshot_decision(answer("apr", 1), jan.snapshot, jan.snapshot, known)
    return [*jan.events, *apr.events]


def model(events: list[DomainEvent]) -> Sources:
    return fold(SiiqSourcesProjection(), recorded(events))


def test_evidence_lines_are_the_input_rows_as_published() -> None:
    state = model(history())
    lines = [json.loads(line) for line in evidence_jsonl(state).splitlines()]
    intake = current_intake(state)
    assert intake is not None
    assert len(lines) == len(intake.results) == intake.left_out["kept"]
    first = lines[0]
    assert list(first)[:6] == ["model", "benchmark", "value", "row", "url", "sha256"]
    assert first["attribution"] == "Epoch AI, ‘Capabilities & benchmarking’ (CC BY 4.0)"
    assert first["sha256"] == answer("apr").sha256  # April's zip, the file as fetched
    gpqa = [x for x in lines if x["benchmark"] == "gpqa_diamond"]
    row = gpqa[0]["row"]
    assert list(row)[:3] == ["Model version", "mean_score", "Best score (across scorers)"]
    assert gpqa[0]["value"] == float(row["Best score (across scorers)"])
    # Cybench's developer-card rows are not inputs; Cybench's independent ones are.
    cybench = {x["row"]["Source"] for x in lines if x["benchmark"] == "cybench"}
    assert cybench == {"Cybench leaderboard"}
    assert len([x for x in lines if x["benchmark"] == "cybench"]) == 12


def test_the_pinned_reference_name_has_its_own_results() -> None:
    lines = [json.loads(line) for line in evidence_jsonl(model(history())).splitlines()]
    thinking = {x["row"]["Model version"] for x in lines if x["model"] == THINKING}
    # (its third version, chutes/..., has results only on benchmarks outside the index)
    assert thinking == {"Qwen3-235B-A22B-Thinking-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507"}
    # April alone (no history) would merge them into the instruct model.
    april_only = snapshot_decision(answer("apr"), None, None, set()).events
    merged = [json.loads(line) for line in evidence_jsonl(model(april_only)).splitlines()]
    assert not [x for x in merged if x["model"] == THINKING]


REMATCH = {
    "source": "epoch",
    "name": "Qwen3-235B-A22B-Instruct-2507",
    "group": "",
    "justification": "test: not the model Epoch files it under",
}


def test_a_rematched_name_drops_its_old_mapping_everywhere() -> None:
    events, owner = history(), Operator()
    before = evidence_jsonl(model(events))
    registration = owner.registers()
    approval = owner.signs(ApproveAlias(**REMATCH), AliasApproved(**REMATCH, operator="olga"))
    approved = [*events, *registration, *approval]
    after = [json.loads(line) for line in evidence_jsonl(model(approved)).splitlines()]
    assert b"Qwen3-235B-A22B-Instruct-2507" in before
    assert not [x for x in after if x["row"]["Model version"] == "Qwen3-235B-A22B-Instruct-2507"]


def test_an_alias_appended_without_a_signed_action_changes_nothing() -> None:
    """ARCHITECTURE.md, "Authority": a decision counts only with the signed action deciding it;
    a bare `AliasApproved` (or one signed for another ledger) is no decision."""
    events, stranger = history(), Operator(origin="argusic.local/ledger/elsewhere")
    before = evidence_jsonl(model(events))
    forged = [AliasApproved(**REMATCH, operator="olga")]
    alias = AliasApproved(**REMATCH, operator="olga")
    elsewhere = [*Operator().registers(), *stranger.signs(ApproveAlias(**REMATCH), alias)]
    assert evidence_jsonl(model([*events, *forged])) == before
    assert evidence_jsonl(model([*events, *elsewhere])) == before


def test_status_shows_each_sources_last_good_file_and_its_failure() -> None:
    events = history()
    good = events[-1]
    broken = snapshot_decision(
        answer(
            "apr",
            2,
            sha256="b" * 64,
            size=5,
            tables=None,
            failure="benchmark_data.zip: an HTML page was served instead of Epoch AI's data",
            failure_kind="html",
        ),
        good,
        good,
        set(),
    ).events
    state = model([*events, *broken])
    [epoch] = status_document(state, as_of=99).sources
    assert not epoch.ok
    assert epoch.failure is not None
    assert "an HTML page was served" in epoch.failure
    assert epoch.last_snapshot is not None
    assert epoch.last_snapshot.sha256 == answer("apr").sha256  # the last good data stays
    assert evidence_jsonl(state) == evidence_jsonl(model(events))
