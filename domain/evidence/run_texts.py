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
from domain.evidence import redaction
from domain.evidence.masking import Stage, mask_text
from domain.evidence.pipeline import security_redaction
from domain.runs import RunRecord


class RedactedRun(NamedTuple):
    """A run record with its texts redacted, and what the redaction changed in each."""

    record: RunRecord
    events: list[EvidenceTransformed]


@lru_cache(maxsize=16)
def _stages(known: tuple[str, ...]) -> list[Stage]:
    """The security redaction's stage for these known keys, built once (its automaton is
    compiled when it first reads a text)."""
    return [t.stage for t in security_redaction(known)]


def redact_run_texts(record: RunRecord) -> RedactedRun:
    """Methodology section 17 ("cualquier valor con forma de secreto se elimina antes de
    guardar"): each free text of a run record, through the security redaction the evidence
    passes (the run's `model_key` in every spelling, every credential form), before the run is
    recorded. A text it changes gets an `EvidenceTransformed` (`security-redaction`, its kind
    the field's name) with what was masked, counted by form, and the SHA-256 of the text as
    recorded; what the text was is never hashed (issue 26). Identifiers (run, project, agent)
    and fields of a fixed form are not free text."""
    stages = _stages((record.model_key,) if record.model_key else ())
    events: list[EvidenceTransformed] = []

    def clean(kind: str, text: str | None) -> str | None:
        if not text:
            return text
        masked, counts = mask_text(stages, text)
        if masked != text:
            events.append(
                EvidenceTransformed(
                    run_id=record.run_id,
                    kind=kind,
                    transform=redaction.NAME,
                    version=redaction.VERSION,
                    input_sha256="",
                    output_sha256=hashlib.sha256(masked.encode()).hexdigest(),
                    counts=dict(sorted(counts[0].items())),
                )
            )
        return masked

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
