"""Names of what a run creates outside, so a crash between two steps stays findable: sandboxes
by label and name prefix, keys by name prefix (ARCHITECTURE.md, "Runner")."""

from __future__ import annotations

import re
from typing import NamedTuple

SANDBOX_PREFIX = "argusic-run-"
KEY_PREFIX = "argusic-run:"
LABEL_RUN = "argusic.run"
LABEL_DEADLINE = "argusic.deadline"
LABEL_LEDGER = "argusic.ledger"
LABEL_CLAIM = "argusic.claim"

_UNSAFE = re.compile(r"[^a-zA-Z0-9_.-]+")


def sandbox_name(run_id: str, claim: int, nonce: str) -> str:
    """Unique per attempt (a name taken by a ghost container answers 409): the run, the claim
    and a nonce drawn by the caller."""
    slug = _UNSAFE.sub("_", run_id)[:120]
    return f"{SANDBOX_PREFIX}{slug}-c{claim}-{nonce}"


class KeyName(NamedTuple):
    ledger: str
    claim: int
    run_id: str


def key_name(ledger: str, run_id: str, claim: int) -> str:
    """The provider-side name of a run's key: which ledger and run own it."""
    return f"{KEY_PREFIX}{ledger}:c{claim}:{run_id}"


def parse_key_name(name: str) -> KeyName | None:
    """The owner a key's name gives, or None for a key that is not a run's."""
    if not name.startswith(KEY_PREFIX):
        return None
    ledger, claim, run_id = [*name[len(KEY_PREFIX) :].split(":", 2), "", ""][:3]
    if not (ledger and claim[:1] == "c" and claim[1:].isdigit() and run_id):
        return None
    return KeyName(ledger, int(claim[1:]), run_id)


def rerun_generation(run_id: str) -> int:
    """1 for a first run, 2 for its first rerun, and so on."""
    base, _, number = run_id.rpartition("~r")
    return int(number) if base and number.isdigit() else 1


def rerun_delay(run_id: str, base_seconds: float, cap_seconds: float = 3600) -> float:
    """How long the rerun of `run_id` waits: doubling with each generation, capped."""
    return float(min(cap_seconds, base_seconds * 2.0 ** (rerun_generation(run_id) - 1)))


def rerun_id(run_id: str) -> str:
    """Methodology section 11: the id of the run that repeats one Argusic's tooling cut short."""
    base, _, number = run_id.rpartition("~r")
    if base and number.isdigit():
        return f"{base}~r{int(number) + 1}"
    return f"{run_id}~r2"


def replaced_run(run_id: str) -> str | None:
    """The run a rerun `<id>~r<N>` repeats: `<id>~r<N-1>`, or `<id>` itself for `~r2`; None for
    a first run."""
    generation = rerun_generation(run_id)
    if generation < 2:
        return None
    base = run_id.rpartition("~r")[0]
    return base if generation == 2 else f"{base}~r{generation - 1}"
