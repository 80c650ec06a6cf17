"""The wall clock, the one place the system reads the time."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Now, in UTC, to the microsecond."""
    return datetime.now(UTC)
