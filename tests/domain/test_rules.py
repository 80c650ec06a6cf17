"""Methodology sections 6a, 15 and 20: environment QA, editions and the source-type table."""

from __future__ import annotations

from datetime import date

from domain.editions import effective_since, version_key
from domain.environment_qa import is_under_review
from domain.source_types import SOURCE_TYPES, source_table


def test_a_project_every_agent_failed_is_under_review() -> None:
    assert is_under_review({"a": ["fail", "timeout"], "b": ["fail"]}, None)


def test_one_pass_keeps_a_project_out_of_review() -> None:
    assert not is_under_review({"a": ["fail", "timeout"], "b": ["pass_mock"]}, None)


def test_a_project_nobody_attempted_is_not_under_review() -> None:
    assert not is_under_review({}, None)
    assert not is_under_review({"a": []}, {"a"})


def test_one_agent_failing_alone_is_not_every_agent_without_a_roster() -> None:
    assert not is_under_review({"a": ["fail", "fail", "fail"]}, None)


def test_with_a_roster_every_roster_agent_must_have_failed() -> None:
    assert not is_under_review({"a": ["fail"], "b": ["fail"]}, {"a", "b", "c"})
    assert is_under_review({"a": ["fail"], "b": ["fail"], "c": ["timeout"]}, {"a", "b", "c"})
    assert is_under_review({"a": ["fail"]}, {"a"})


def test_effective_since_is_the_first_run_measured_with_the_edition() -> None:
    runs = [("1.2", date(2026, 9, 6)), ("1.2", date(2026, 9, 4)), ("1.3", date(2026, 9, 5))]
    assert effective_since("1.2", runs) == date(2026, 9, 4)


def test_an_edition_no_run_used_has_no_effective_date() -> None:
    assert effective_since("1.5", [("1.2", date(2026, 9, 4))]) is None


def test_editions_order_by_number() -> None:
    assert sorted(["1.10", "1.9", "0.2"], key=version_key) == ["0.2", "1.9", "1.10"]


def test_the_source_table_lists_all_eight_sources() -> None:
    rows = source_table([])
    assert [r.source_type for r in rows] == list(SOURCE_TYPES)
    assert len(rows) == 8
    assert {r.status for r in rows} == {"declared_not_started"}


def test_a_source_is_in_use_with_its_count_of_published_projects_tested() -> None:
    rows = {
        r.source_type: r
        for r in source_table(
            [
                ("repository", "public", "a"),
                ("repository", "public", "a"),
                ("repository", "public", "b"),
                ("huggingface_model", "public", "m"),
                ("mcp_server", "secret", "s"),
            ]
        )
    }
    assert (rows["repository"].status, rows["repository"].projects_tested) == ("in_use", 2)
    assert (rows["huggingface_model"].status, rows["huggingface_model"].projects_tested) == (
        "in_use",
        1,
    )
    assert (rows["mcp_server"].status, rows["mcp_server"].projects_tested) == (
        "declared_not_started",
        0,
    )
