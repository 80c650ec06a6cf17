"""SI-IQ section 8's cross-check over real HTTP on 127.0.0.1: the chat-completions client and
the stand-in, which confirms a number only when the quoted row carries it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from domain.siiq.crosscheck import Claim, CrossCheckUnavailable, claim_of, confirmed

ROW = {
    "Model version": "gpt-5-2025-08-07_high",
    "Best score (across scorers)": "0.853",
    "stderr": "0.02",
}
COLUMN = "Best score (across scorers)"


@pytest.fixture
def stand_in() -> Iterator[CrossCheckStandIn]:
    server = CrossCheckStandIn().start()
    yield server
    server.stop()


def claim(number: object, identity: str = "gpt-5-2025-08-07_high") -> Claim:
    row = dict(ROW, **{COLUMN: number})
    return claim_of("GPT-5", "gpqa_diamond", row, COLUMN, identity)


def test_the_stand_in_confirms_only_what_the_row_carries(stand_in: CrossCheckStandIn) -> None:
    with ChatCrossChecker(stand_in.url, "other-family", "token") as checker:
        good = checker.ask([claim("0.853")])
        # A claim whose number is not in the row it quotes, or whose name is not.
        answers = checker.ask(
            [
                Claim(
                    model="GPT-5",
                    benchmark="gpqa_diamond",
                    number="0.91",
                    identity="gpt-5-2025-08-07_high",
                    columns=list(ROW),
                    cells=list(ROW.values()),
                ),
                claim("0.853", identity="gpt-5-mini"),
            ]
        )
    assert [confirmed(a) for a in good] == [True]
    assert [confirmed(a) for a in answers] == [False, False]
    assert stand_in.calls == 3


def test_a_checker_down_or_unreachable_is_unavailable(stand_in: CrossCheckStandIn) -> None:
    stand_in.down = True
    with (
        ChatCrossChecker(stand_in.url, "other-family", "token") as checker,
        pytest.raises(CrossCheckUnavailable, match="503"),
    ):
        checker.ask([claim("0.853")])
    with (
        ChatCrossChecker("http://127.0.0.1:9/v1", "m", "t", timeout=2) as checker,
        pytest.raises(CrossCheckUnavailable, match="did not answer"),
    ):
        checker.ask([claim("0.853")])


def test_answers_that_are_not_the_asked_json_confirm_nothing() -> None:
    assert confirmed(
        '```json\n{"model": true, "benchmark": true, "number": true, "identity": true}\n```'
    )
    assert not confirmed('{"model": true, "benchmark": true, "number": true}')
    assert not confirmed("Yes, all four match.")


def test_the_cli_stand_in_serves_the_protocol() -> None:
    argusic = Path(sys.executable).with_name("argusic")
    process = subprocess.Popen(
        [str(argusic), "crosscheck", "stand-in"],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with ChatCrossChecker(url, "other-family", "") as checker:
            assert [confirmed(a) for a in checker.ask([claim("0.853")])] == [True]
    finally:
        process.terminate()
        process.wait(timeout=10)
