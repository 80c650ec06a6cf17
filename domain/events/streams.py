"""Every stream name, spelled once: the aggregate each kind of fact is versioned in."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

SIIQ_CALIBRATION = "siiq-calibration"
"""Every SI-IQ calibration decision, accepted or rejected, in the order made."""
OPERATORS = "operators"
"""Every registration and revocation of an operator's key, in the order made."""
PUBLICATION = "publication"
"""Every approval of a position for the public, in the order made."""
STREAM_HEADS = "stream-heads"
"""Every commitment to the streams' heads, one with each approval."""

SIIQ_UPDATES = "siiq-updates"
"""Every SI-IQ update run, halt and cross-check refusal, in the order made."""
SIIQ_VALUES = "siiq-values"
"""Every change to the SI-IQ index's published inputs."""
SIIQ_NOTICES = "siiq-notices"
"""Every notice to the operator about SI-IQ's updates."""
SIIQ_PUBLICATION = "siiq-publication"
"""Every SI-IQ publication and halt of publication."""

CANDIDATE_FETCHES = "pool-candidate-fetches"
"""Every round of `pool candidates` the API cut short, in the order tried."""

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


def candidate(project: str) -> str:
    """A repository's records as a candidate for the project pool (sections 3 and 6)."""
    return f"pool-candidate:{project}"


def reproduction(run_id: str) -> str:
    """A run's reproduction requests and their reports, in the order made."""
    return f"reproduction:{run_id}"


def instructions(sha256: str) -> str:
    """One version of the standard instructions, published once (sections 7 and 18)."""
    return f"instructions:{sha256}"


EVIDENCE = "evidence:"
"""The prefix of every run's evidence streams."""


def evidence(run_id: str, kind: str) -> str:
    """One of a run's files (or quoted texts) and the transforms applied to it."""
    return f"{EVIDENCE}{run_id}:{kind}"


def rerun(run_id: str) -> str:
    return f"rerun:{run_id}"


def stronger(cycle_id: str, project_id: str) -> str:
    """The request for a cycle's stronger agent on one project (section 11)."""
    return f"stronger:{cycle_id}:{project_id}"


def agent(agent_id: str) -> str:
    return f"agent:{agent_id}"


def cycle(cycle_id: str) -> str:
    """A cycle's record and its closing."""
    return f"cycle:{cycle_id}"


def operator_key(key_id: str) -> str:
    """The actions one key signed: their versions are their sequence numbers."""
    return f"operator:{key_id}"


def dispute(dispute_id: str) -> str:
    return f"dispute:{dispute_id}"


def hold(hold_id: str) -> str:
    return f"hold:{hold_id}"


def revision(benchmark: str) -> str:
    return f"revision:{benchmark}"


def source_guard(source: str) -> str:
    """Section 8's verdicts on one SI-IQ source's snapshots (data kept, data accepted)."""
    return f"source-guard:{source}"


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


def timeline(run_id: str) -> str:
    """A run's timeline as derived on arrival (section 17)."""
    return f"timeline:{run_id}"


def render(run_id: str) -> str:
    """A run's renders (section 17, the presentation layer), in the order made."""
    return f"render:{run_id}"
