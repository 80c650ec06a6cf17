"""Every text a run carries, redacted before it is recorded (methodology section 17; issue 26):
the agent's report (`verified_how`, `final_state`), the reason a run was cut short, the
project's description and address as the run record gives them. The same security redaction
as the evidence's, with the run's own key: a ledger is append-only, so a credential recorded
once could never be taken out of it, nor out of the pages that quote it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import msgspec

from domain.events import EvidenceTransformed
from domain.evidence import generated_keys
from domain.evidence.masking import Stage, mask_text
from domain.evidence.pipeline import Transform, security_redaction
from domain.runs import RunRecord


class RedactedRun(NamedTuple):
    """A run record with its texts redacted, and what the redaction changed in each."""

    record: RunRecord
    events: list[EvidenceTransformed]


@lru_cache(maxsize=16)
def _transforms(known: tuple[str, ...]) -> list[Transform]:
    """The security redaction for these known keys, then the generated-key masking of a text
    read whole; built once (an automaton is compiled when it first reads a text)."""
    keys = Stage(
        generated_keys.find_key_bodies_in_a_text,
        sign=generated_keys.BEGIN.pattern,
        marker=generated_keys.MARKER,
    )
    return [
        *security_redaction(known),
        Transform(generated_keys.NAME, generated_keys.VERSION, keys),
    ]


def redact_run_texts(record: RunRecord) -> RedactedRun:
    """Methodology section 17 ("cualquier valor con forma de secreto se elimina antes de
    guardar"): each free text of a run record, through the security redaction the evidence
    passes (the run's `model_key` in every spelling, every credential form), then the masking
    of generated private keys (a text has no served copy apart from what is recorded), before
    the run is recorded. Each transform that changes a text gets an `EvidenceTransformed` (its
    kind the field's name) with what was masked, counted by form, and the SHA-256 of its output;
    its input held what was masked, so it is not recorded (issue 26). Identifiers (run,
    project, agent) and fields of a fixed form are not free text."""
    transforms = _transforms((record.model_key,) if record.model_key else ())
    events: list[EvidenceTransformed] = []

    def clean(kind: str, given: str | None) -> str | None:
        if not given:
            return given
        text = given
        for transform in transforms:
            masked, counts = mask_text([transform.stage], text)
            if masked != text:
                events.append(
                    EvidenceTransformed(
                        run_id=record.run_id,
                        kind=kind,
                        transform=transform.name,
                        version=transform.version,
                        input_sha256="",
                        output_sha256=hashlib.sha256(masked.encode()).hexdigest(),
                        counts=dict(sorted(counts[0].items())),
                    )
                )
            text = masked
        return text

    return RedactedRun(_with_texts(record, clean), events)


def _with_texts(record: RunRecord, clean: Callable[[str, str | None], str | None]) -> RunRecord:
    """The record with each free text replaced by what `clean` makes of it, in a fixed order."""
    report = record.report
    if report is not None:
        report = msgspec.structs.replace(
            report,
            verified_how=clean("verified_how", report.verified_how),
            final_state=clean("final_state", report.final_state),
        )
    project = msgspec.structs.replace(
        record.project,
        description=clean("project_description", record.project.description),
        repo=clean("project_repo", record.project.repo),
    )
    return msgspec.structs.replace(
        record,
        report=report,
        project=project,
        invalid_reason=clean("invalid_reason", record.invalid_reason),
    )
