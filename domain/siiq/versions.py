"""SI-IQ section 11: the method's version, shown on every data file and page. Patch versions
correct data without changing parameters, minor versions are recalibrations (monthly, or a
frozen benchmark moving to revised values), major versions change the transform, the model,
the areas, the benchmark set or the reference group."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.siiq.records import CalibrationSummary

Kind = Literal["patch", "minor", "major"]


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
