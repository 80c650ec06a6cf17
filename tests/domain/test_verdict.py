"""Methodology section 11: the project verdict, under the edition each attempt ran with."""

from __future__ import annotations

import pytest

from domain.verdict import Attempt, chain_complete, verdict, verdict_chain


def test_works_when_any_attempt_passed_fully() -> None:
    assert (
        verdict([Attempt("standard", "1.3", "fail"), Attempt("retry", "1.3", "pass_full")])
        == "works"
    )


def test_works_with_mocks_when_the_best_pass_used_mocks() -> None:
    attempts = [Attempt("standard", "1.3", "pass_mock"), Attempt("retry", "1.3", "fail")]
    assert verdict(attempts) == "works_with_mocks"


def test_the_best_result_wins_over_a_later_failure() -> None:
    attempts = [Attempt("standard", "1.4", "pass_full"), Attempt("retry", "1.4", "pass_mock")]
    assert verdict(attempts) == "works"


def test_before_1_3_the_chain_needs_standard_retry_and_stronger() -> None:
    two = [Attempt("standard", "1.2", "fail"), Attempt("retry", "1.2", "timeout")]
    assert verdict(two) == "not_yet_verified"
    assert verdict([*two, Attempt("stronger", "1.2", "fail")]) == "could_not_verify"


def test_from_1_3_two_full_standard_attempts_decide() -> None:
    one = [Attempt("standard", "1.3", "fail")]
    assert verdict(one) == "not_yet_verified"
    assert verdict([*one, Attempt("retry", "1.3", "timeout")]) == "could_not_verify"


def test_from_1_3_a_stronger_agent_alone_does_not_close_the_chain() -> None:
    assert not chain_complete(
        [Attempt("standard", "1.4", "fail"), Attempt("stronger", "1.4", "fail")], "1.4"
    )


def test_a_pass_by_the_stronger_agent_on_request_makes_it_work() -> None:
    attempts = [
        Attempt("standard", "1.3", "fail"),
        Attempt("retry", "1.3", "fail"),
        Attempt("stronger", "1.3", "pass_full"),
    ]
    assert verdict(attempts) == "works"


@pytest.mark.parametrize("attempts", [[], [Attempt("retry", "1.0", "fail")]])
def test_not_yet_verified_while_attempts_are_missing(attempts: list[Attempt]) -> None:
    assert verdict(attempts) == "not_yet_verified"


def test_verdict_chain_before_1_3_is_standard_retry_stronger() -> None:
    for edition in ("0.4", "1.0", "1.2"):
        assert verdict_chain(edition) == (("standard", "retry", "stronger"), "in_chain")


def test_verdict_chain_from_1_3_is_two_full_standard_attempts_stronger_on_request() -> None:
    for edition in ("1.3", "1.5", "1.10"):
        assert verdict_chain(edition) == (("standard", "standard"), "on_request")


@pytest.mark.parametrize("edition", ["1.0", "1.2", "1.3", "1.5"])
def test_verdict_chain_s_steps_are_what_completes_the_chain(edition: str) -> None:
    chain = verdict_chain(edition)
    kinds = {"standard": "standard", "retry": "retry", "stronger": "stronger"}
    attempts = [Attempt(kinds[step], edition, "fail") for step in chain.steps]
    assert chain_complete(attempts, edition)
    assert not chain_complete(attempts[:-1], edition)
