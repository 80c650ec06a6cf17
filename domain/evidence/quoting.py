"""Quoted text on pages (methodology section 17, Owner decision 2026-09-04): an em dash the
author wrote in an agent's final sentence or a repository description is shown as a comma, or
a period where it ends the text; the stored report is never touched."""

from __future__ import annotations

import hashlib
import re

from domain.events import EvidenceTransformed, RunRecorded

NAME, VERSION = "quoted-text", 1

_TRAILING = re.compile(r"\s*\u2014\s*$")
_INSIDE = re.compile(r"\s*\u2014\s*")


def house_punctuation(text: str) -> str:
    """Words and their order never change: only the em dash becomes a comma or a period."""
    return _INSIDE.sub(", ", _TRAILING.sub(".", text))


def quoted_final_state(run: RunRecorded) -> str | None:
    """Section 16: the agent's final-state sentence, verbatim but for the house punctuation, as
    the run and project pages both show it."""
    final_state = run.report.final_state if run.report else None
    return None if final_state is None else house_punctuation(final_state)


def quoted_text_events(run: RunRecorded) -> list[EvidenceTransformed]:
    """The agent's final sentence and the repository's description as pages show them, where
    the house punctuation changes them (the stored words never change)."""
    texts = {
        "final_state": run.report.final_state if run.report else None,
        "project_description": run.project.description,
    }
    return [
        EvidenceTransformed(
            run_id=run.run_id,
            kind=kind,
            transform=NAME,
            version=VERSION,
            input_sha256=hashlib.sha256(text.encode()).hexdigest(),
            output_sha256=hashlib.sha256(shown.encode()).hexdigest(),
            counts={"em_dash": text.count("\u2014")},
        )
        for kind, text in texts.items()
        if text and (shown := house_punctuation(text)) != text
    ]
