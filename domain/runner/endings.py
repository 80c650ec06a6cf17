"""How a run ended, told apart so that only the budget running out is a timeout (methodology
sections 7, 8 and 11): anything Argusic's own tooling caused or failed at is `aborted`."""

from __future__ import annotations

from datetime import datetime

from domain.events import Ended


def budget_end(timeout_at: datetime, deadline: datetime) -> tuple[Ended, str | None]:
    """Methodology section 8: "Se quedó sin tiempo" only when the agent had its whole budget;
    a run whose setup ate into it and reached the hard deadline first was cut short by us."""
    if timeout_at <= deadline:
        return "timed_out", None
    return "aborted", "the run's deadline came before the agent's budget ran out"


def agent_end(
    exit_code: int | None, sandbox_running: bool, oom_killed: bool
) -> tuple[Ended, str | None]:
    """Methodology section 11: the agent's session ended before its budget; it exited on its
    own only if its sandbox is still there. A sandbox killed from outside, out of memory, or an
    exit nobody can read is Argusic's failure, never the agent's result."""
    if oom_killed:
        return "aborted", "the sandbox ran out of memory"
    if not sandbox_running:
        return "aborted", "the sandbox was stopped from outside during the run"
    if exit_code is None:
        return "aborted", "the agent's exit could not be read"
    return "exited", None
