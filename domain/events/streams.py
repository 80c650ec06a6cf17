"""Every stream name, spelled once: the aggregate each kind of fact is versioned in."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

SIIQ_CALIBRATION = "siiq-calibration"
"""Every SI-IQ calibration decision, accepted or rejected, in the order made."""


def edition(version: str) -> str:
    return f"edition:{version}"


def run(run_id: str) -> str:
    return f"run:{run_id}"


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


def source_address(source: str, address: str) -> str:
    """One configured address of an SI-IQ source, and every file it served."""
    return f"source:{source}:{_digest(address)}"


def source_table(source: str, table: str, sha256: str) -> str:
    """One distinct table of a source (its name and the SHA-256 of its bytes)."""
    return f"source-table:{source}:{table}:{sha256[:16]}"


def source_alias(source: str, name: str) -> str:
    """A source's name and every approved match of it, latest last."""
    return f"source-alias:{source}:{_digest(name)}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]
