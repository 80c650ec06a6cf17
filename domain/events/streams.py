"""Every stream name, spelled once: the aggregate each kind of fact is versioned in."""

from __future__ import annotations

from collections.abc import Mapping

SIIQ_CALIBRATION = "siiq-calibration"
"""Every SI-IQ calibration decision, accepted or rejected, in the order made."""

SWEEPS = "runner-sweeps"
"""What the sweeper and emergency stops removed, in the order done."""


def edition(version: str) -> str:
    return f"edition:{version}"


def run(run_id: str) -> str:
    return f"run:{run_id}"


def attempt(run_id: str) -> str:
    """A scheduled run's lifecycle in the runner: claimed at its next version, so only once."""
    return f"attempt:{run_id}"


def review(project_id: str) -> str:
    return f"review:{project_id}"


def evidence(run_id: str, kind: str) -> str:
    """One of a run's files (or quoted texts) and the transforms applied to it."""
    return f"evidence:{run_id}:{kind}"


def rerun(run_id: str) -> str:
    return f"rerun:{run_id}"


def siiq_inputs(inputs: Mapping[str, str]) -> str:
    """One distinct set of SI-IQ input files, named by their SHA-256s."""
    return "siiq-inputs:" + "-".join(inputs[k][:16] for k in sorted(inputs))
