"""SI-IQ section 11: the method's version, shown on every data file and page. Patch versions
correct data without changing parameters, minor versions are recalibrations (monthly, or a
frozen benchmark moving to revised values), major versions change the transform, the model,
the areas, the benchmark set or the reference group."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Literal

import msgspec

from domain.siiq.records import CalibrationSummary

Kind = Literal["patch", "minor", "major"]
MAJOR_EVERY = timedelta(days=365)
"""Section 4: a major version at most once a year."""


class Conversion(msgspec.Struct, frozen=True, kw_only=True):
    """A row of a major version's conversion table: a model's SI-IQ before and after."""

    model: str
    old: float
    new: float


def major(version: str) -> int:
    """A version's major number (section 11)."""
    return int(version.split(".", 1)[0])


def bump(version: str, kind: Kind) -> str:
    """The next version after `version` for a change of `kind`."""
    major, minor, patch = (int(part) for part in version.split("."))
    if kind == "major":
        return f"{major + 1}.0.0"
    if kind == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def structural_change(before: CalibrationSummary, after: CalibrationSummary) -> str | None:
    """SI-IQ sections 4 and 11: what makes a calibration a major version (the reference group,
    which only changes with one); None for a recalibration."""
    if sorted(before.reference) != sorted(after.reference):
        gone = sorted(set(before.reference) - set(after.reference))
        new = sorted(set(after.reference) - set(before.reference))
        parts = [
            f"without {', '.join(gone)}" if gone else "",
            f"with {', '.join(new)}" if new else "",
        ]
        detail = "; ".join(p for p in parts if p)
        return f"the reference group would change ({detail}): only a major version changes it"
    return None


def calibration_version(
    in_force: CalibrationSummary, new: CalibrationSummary, version: str, kind: Kind
) -> str:
    """SI-IQ section 11: the version a calibration after `in_force` carries: the next minor
    (or major) version, or the current one when the parameters came out identical (nothing
    changed, so no new version)."""
    if msgspec.structs.replace(new, version=in_force.version) == in_force:
        return version
    return bump(version, kind)


def major_too_soon(major_since: datetime | None, now: datetime) -> str | None:
    """SI-IQ section 4: a major version at most once a year, counted from the calibration
    that began the version in force; why a new one is refused, or None."""
    if major_since is None or now - major_since >= MAJOR_EVERY:
        return None
    return (
        f"a major version at most once a year: the version in force began on "
        f"{major_since:%Y-%m-%d}, the next may come from {major_since + MAJOR_EVERY:%Y-%m-%d}"
    )


def conversion_table(
    before: Sequence[tuple[str, float]], after: Sequence[tuple[str, float]]
) -> list[Conversion]:
    """SI-IQ section 4: a major version's published conversion table, old score -> new, for
    every model scored by both (slug, full-precision SI-IQ)."""
    old = dict(before)
    return [Conversion(model=m, old=old[m], new=v) for m, v in sorted(after) if m in old]
