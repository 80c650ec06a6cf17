"""SI-IQ section 1.1 (independence) on the real rows of Epoch AI's April 2026 export."""

from __future__ import annotations

import csv

from domain.siiq.independence import developer_reported
from tests.reference import EPOCH_APR as APR


def rows(file: str) -> list[dict[str, str]]:
    with (APR / file).open(encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def reported(file: str) -> list[tuple[str, str]]:
    return [
        (r["Model version"], r["Source"])
        for r in rows(file)
        if developer_reported(r, r["Organization"])
    ]


def test_developer_reported_cybench_rows_from_the_developers_own_cards() -> None:
    found = reported("cybench_external.csv")
    # The six rows whose source is a developer's own system or model card (on its own site);
    # the filter the converter had (the developer's name in the source) let all six through.
    assert [row for row in found if "Card" in row[1]] == [
        ("claude-opus-4-6_unknown", "Opus 4.6 System Card"),
        ("claude-opus-4-5-20251101_unknown", "Opus 4.5 System Card"),
        ("claude-sonnet-4-5-20250929_unknown", "Opus 4.5 System Card"),
        ("grok-4-0709", "Grok 4 Model Card"),
        ("grok-4-1", "Grok 4.1 Model Card"),
        ("grok-4-fast", "Grok 4 Fast Model Card"),
    ]
    # And four rows the Cybench leaderboard repeats, whose notes say they are "from the Claude
    # 4.5 Sonnet System Card": numbers Anthropic reported about its own models.
    assert [row for row in found if "Card" not in row[1]] == [
        ("claude-sonnet-4-5-20250929", "Cybench leaderboard"),
        ("claude-opus-4-1-20250805", "Cybench leaderboard"),
        ("claude-opus-4-20250514", "Cybench leaderboard"),
        ("claude-sonnet-4-20250514", "Cybench leaderboard"),
    ]
    kept = [r for r in rows("cybench_external.csv") if not developer_reported(r, r["Organization"])]
    assert len(kept) == 12
    assert all(r["Source"] == "Cybench leaderboard" for r in kept)


def test_developer_reported_an_announcement_on_the_developers_site() -> None:
    assert reported("os_world_external.csv") == [
        ("claude-opus-4-5-20251101", "Anthropic annoucement")
    ]


def test_developer_reported_leaves_independent_leaderboards_alone() -> None:
    for file in (
        "aider_polyglot_external.csv",
        "simplebench_external.csv",
        "weirdml_external.csv",
        "swe_bench_bash.csv",
        "terminalbench_external.csv",
        "gpqa_diamond.csv",
    ):
        assert reported(file) == [], file


def test_developer_reported_by_link_alone() -> None:
    row = {
        "Source": "Leaderboard",
        "Source link": "https://data.x.ai/some-results.pdf",
        "Notes": "",
    }
    assert developer_reported(row, "xAI")
    assert not developer_reported(row, "OpenAI")  # xAI publishing about another's model
    shared = {"Source": "A sheet", "Source link": "https://docs.google.com/spreadsheets/d/x"}
    assert not developer_reported(shared, "Google DeepMind")  # anyone's documents live there
