"""Verifying means decoding, not probing (methodology section 16)."""

from __future__ import annotations

import msgspec

from domain.editions import version_key
from domain.events import Report

DECODING_REQUIRED_FROM = (1, 4)
NOT_VERIFIED = "not verified"


def decoding_reported(report: Report) -> bool:
    """Section 16: verified_how holds the command that decoded the output and what it returned;
    "not verified" (or nothing) is an accepted answer, and reports no decoding."""
    how = (report.verified_how or "").strip()
    return bool(how) and how.lower() != NOT_VERIFIED


def as_verified(report: Report, edition: str) -> Report:
    """Section 16, from v1.4: tier1_real is earned only by a decoding the report names; a
    tier1_real claim without one counts as unverified (tier3_none). Before v1.4 the report
    is taken as it stands: no edition applies backwards."""
    if (
        report.test_depth == "tier1_real"
        and version_key(edition) >= DECODING_REQUIRED_FROM
        and not decoding_reported(report)
    ):
        return msgspec.structs.replace(report, test_depth="tier3_none")
    return report
