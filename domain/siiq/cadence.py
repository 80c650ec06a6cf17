"""SI-IQ section 8's cadence: every source is checked each hour ("cada fuente se comprueba cada
hora"), and a halted publication resumes by itself only once the situation held for six
hourly runs."""

from __future__ import annotations

from datetime import datetime

EVERY_SECONDS = 3600.0
"""Section 8: `siiq watch` fetches and updates once an hour unless told otherwise."""


def clock_hour(at: datetime) -> datetime:
    return at.replace(minute=0, second=0, microsecond=0)


def hourly_run(last_counted: datetime | None, at: datetime) -> bool:
    """SI-IQ section 8: a run counts as one of the six hourly runs a halted publication waits
    for when it falls in a later clock hour than the last one counted; more runs in one hour
    (a faster watch, an update by hand) add nothing."""
    return last_counted is None or clock_hour(at) > clock_hour(last_counted)
