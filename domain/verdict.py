"""The project verdict (methodology section 11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from domain.editions import version_key
from domain.events import AttemptKind
from domain.scoring import Outcome

Verdict = Literal["works", "works_with_mocks", "could_not_verify", "not_yet_verified"]

TWO_FULL_ATTEMPTS_FROM = (1, 3)


class Attempt(NamedTuple):
    """A valid attempt at a project, in ledger order."""

    kind: AttemptKind
    edition: str
    outcome: Outcome


def chain_complete(failed: Sequence[Attempt], edition: str, *, stronger: bool = True) -> bool:
    """Methodology section 11, over complete attempts (valid ones: the agent worked to its own end
    or its time limit; one our tooling cut short never counts): before v1.3 a failing project
    needs the standard agent, its retry and, where the cycle has one (`stronger`), the stronger
    agent; from v1.3 two full attempts with the standard agent decide (the stronger agent runs
    only on request)."""
    kinds = [a.kind for a in failed]
    if version_key(edition) >= TWO_FULL_ATTEMPTS_FROM:
        return sum(kind in ("standard", "retry") for kind in kinds) >= 2
    return {"standard", "retry"} <= set(kinds) and ("stronger" in kinds or not stronger)


def verdict(attempts: Sequence[Attempt], *, stronger: bool = True) -> Verdict:
    """Methodology section 11: the best result any valid attempt reached; without a pass,
    "could not verify" once the chain of the latest attempt's edition is complete (`stronger`:
    whether that chain has a stronger agent), and "not yet verified" before."""
    outcomes = {a.outcome for a in attempts}
    if "pass_full" in outcomes:
        return "works"
    if "pass_mock" in outcomes:
        return "works_with_mocks"
    if attempts and chain_complete(attempts, attempts[-1].edition, stronger=stronger):
        return "could_not_verify"
    return "not_yet_verified"
