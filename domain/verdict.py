"""The project verdict (methodology section 11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from domain.editions import version_key
from domain.events import AttemptKind
from domain.scoring import Outcome

Verdict = Literal["works", "works_with_mocks", "could_not_verify", "not_yet_verified"]

TWO_FULL_ATTEMPTS_FROM = (1, 3)
Stronger = Literal["in_chain", "on_request"]


class Attempt(NamedTuple):
    """A valid attempt at a project, in ledger order."""

    kind: AttemptKind
    edition: str
    outcome: Outcome


class Chain(NamedTuple):
    """The attempts that decide a failing project under one edition, in order, and whether the
    stronger agent is one of them or runs only when a person asks for it."""

    steps: tuple[AttemptKind, ...]
    stronger: Stronger


def verdict_chain(edition: str) -> Chain:
    """Methodology section 11: before v1.3 the standard agent once, a retry with the same agent,
    then the stronger agent, stopping at the first pass; from v1.3 two full attempts with the
    standard agent decide, and the stronger agent runs only on request."""
    if version_key(edition) >= TWO_FULL_ATTEMPTS_FROM:
        return Chain(("standard", "standard"), "on_request")
    return Chain(("standard", "retry", "stronger"), "in_chain")


def chain_complete(failed: Sequence[Attempt], edition: str, *, stronger: bool = True) -> bool:
    """Methodology section 11, over complete attempts (valid ones: the agent worked to its own end
    or its time limit; one our tooling cut short never counts): `verdict_chain(edition)`'s steps
    (before v1.3 the stronger agent's only where the cycle has one, `stronger`); from v1.3 any
    two full attempts with the standard agent (its retries included)."""
    kinds = [a.kind for a in failed]
    chain = verdict_chain(edition)
    if chain.stronger == "on_request":
        return sum(kind in ("standard", "retry") for kind in kinds) >= len(chain.steps)
    needed = set(chain.steps) - (set() if stronger else {"stronger"})
    return needed <= set(kinds)


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
