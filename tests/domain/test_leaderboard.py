"""Methodology section 9: from many runs to one figure per agent."""

from __future__ import annotations

from fractions import Fraction

from domain.leaderboard import Excluded, ScoredRun, agent_score, leaderboard, pass_rate


def runs(agent: str, project: str, *scores: int, passed: bool = True) -> list[ScoredRun]:
    return [ScoredRun(agent, project, Fraction(s), passed) for s in scores]


def test_agent_score_is_the_middle_of_the_per_project_middles() -> None:
    board = leaderboard(
        runs("a", "p1", 100, 100, 92) + runs("a", "p2", 80, 92, 100) + runs("a", "p3", 30, 40, 40),
        under_review=set(),
    )
    assert board[0].score == 92  # middles 100, 92, 40
    assert board[0].projects_counted == 3


def test_agent_score_of_an_even_count_of_projects() -> None:
    assert agent_score([Fraction(92), Fraction(50)]) == 71


def test_unstable_sets_and_projects_under_review_are_left_out_and_named() -> None:
    board = leaderboard(
        runs("a", "steady", 100, 100, 100)
        + runs("a", "shaky", 0, 0, 40)
        + runs("a", "broken", 50, 50, 50),
        under_review={"broken"},
    )
    assert board[0].score == 100
    assert board[0].excluded == [Excluded("broken", "under_review"), Excluded("shaky", "unstable")]


def test_an_agent_with_everything_left_out_is_listed_last_without_a_score() -> None:
    board = leaderboard(
        runs("zed", "shaky", 0, 0, 40) + runs("amy", "steady", 30, 30, 30), under_review=set()
    )
    assert [(s.agent, s.score) for s in board] == [("amy", 30), ("zed", None)]
    assert board[1].excluded == [Excluded("shaky", "unstable")]


def test_rows_are_ordered_by_score_then_agent() -> None:
    board = leaderboard(
        runs("b", "p", 80, 80, 80) + runs("c", "p", 92, 92, 92) + runs("a", "p", 80, 80, 80),
        under_review=set(),
    )
    assert [s.agent for s in board] == ["c", "a", "b"]


def test_a_set_counts_once_it_has_three_valid_runs_and_an_incomplete_one_is_named() -> None:
    board = leaderboard(runs("a", "p1", 100, 100) + runs("a", "p2", 50, 50, 50), set())
    assert (board[0].score, board[0].projects_counted) == (50, 1)
    assert board[0].excluded == [Excluded("p1", "incomplete")]
    assert board[0].middles == {"p2": 50}


def test_a_project_under_review_is_named_as_such_even_when_its_set_is_incomplete() -> None:
    board = leaderboard(runs("a", "p1", 30, 30), {"p1"})
    assert board[0].excluded == [Excluded("p1", "under_review")]


def test_is_ranked_agent_an_agent_only_used_as_the_stronger_agent_is_no_row() -> None:
    stronger = [ScoredRun("s", "p", Fraction(100), True, stronger=True)]
    board = leaderboard(runs("a", "p", 80, 80, 80) + stronger, set())
    assert [s.agent for s in board] == ["a"]
    both = leaderboard(stronger + runs("s", "q", 90, 90, 90), set())
    assert [(s.agent, s.attempts) for s in both] == [("s", 4)]


def test_pass_rate_counts_every_valid_attempt_failures_and_timeouts_included() -> None:
    attempts = runs("a", "p", 100, 92, passed=True) + runs("a", "p", 80, 0, 0, passed=False)
    assert pass_rate(attempts) == Fraction(2, 5)
    assert leaderboard(attempts, set())[0].attempts == 5
