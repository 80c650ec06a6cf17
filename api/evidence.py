"""The served copies of a run's evidence (methodology section 17): each file streamed through
the transforms into the artifact store, every application recorded as an event; a file that
cannot be shown safe is withheld and its run marked for a rerun."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple, Protocol

from adapters.artifacts import chunks
from domain.events import (
    DomainEvent,
    EvidenceTransformed,
    Fingerprint,
    RecordingWithheld,
    RerunRequested,
    RunRecorded,
)
from domain.evidence import quoting
from domain.evidence.asciicast import RecordingError
from domain.evidence.masking import Withhold
from domain.evidence.pipeline import Applied, Derivation, section_17


class EvidenceStore(Protocol):
    def put(self, source: Path) -> Fingerprint: ...

    def put_stream(self, chunks: Iterable[bytes]) -> Fingerprint: ...


class Outcome(NamedTuple):
    """What deriving one file gave: the transforms applied, or why it is withheld."""

    raw: Fingerprint
    applied: list[Applied]
    withheld: str | None


class Deriver:
    """Derives each distinct file once per ingest, however many runs name it (with the same
    model key and harness), and gives every run its own events."""

    def __init__(self, store: EvidenceStore, banners: Callable[[str], list[str]]) -> None:
        self.store, self.banners = store, banners
        self.done: dict[tuple[Path, str, str | None, str], Outcome] = {}

    def events(
        self, run: RunRecorded, files: dict[str, Path], model_key: str | None
    ) -> list[DomainEvent]:
        events: list[DomainEvent] = []
        for kind, path in files.items():
            key = (path, kind, model_key, run.agent.harness)
            if key not in self.done:
                self.done[key] = self._derive(path, kind, model_key, run.agent.harness)
            outcome = self.done[key]
            if outcome.withheld is not None:
                events.append(
                    RecordingWithheld(
                        run_id=run.run_id,
                        kind=kind,
                        input_sha256=outcome.raw.sha256,
                        reason=outcome.withheld,
                    )
                )
                events.append(
                    RerunRequested(run_id=run.run_id, reason=f"{kind} withheld: {outcome.withheld}")
                )
                continue
            events += [
                EvidenceTransformed(
                    run_id=run.run_id,
                    kind=kind,
                    transform=a.transform,
                    version=a.version,
                    input_sha256=a.input_sha256,
                    output_sha256=a.output_sha256,
                    counts=a.counts,
                )
                for a in outcome.applied
            ]
        return events + _quoted(run)

    def _derive(self, path: Path, kind: str, model_key: str | None, harness: str) -> Outcome:
        raw = self.store.put(path)
        derivation = Derivation(section_17([model_key] if model_key else [], self.banners(harness)))
        try:
            derive = derivation.cast if kind == "cast" else derivation.log
            self.store.put_stream(derive(chunks(path)))
        except RecordingError as e:
            return Outcome(raw, [], f"the recording cannot be parsed: {e}")
        except Withhold as e:
            return Outcome(raw, [], e.reason)
        return Outcome(raw, derivation.applied(), None)


def _quoted(run: RunRecorded) -> list[DomainEvent]:
    """The agent's final sentence and the repository's description as pages show them, where
    the house punctuation changes them."""
    texts = {
        "final_state": run.report.final_state if run.report else None,
        "project_description": run.project.description,
    }
    return [
        EvidenceTransformed(
            run_id=run.run_id,
            kind=kind,
            transform=quoting.NAME,
            version=quoting.VERSION,
            input_sha256=hashlib.sha256(text.encode()).hexdigest(),
            output_sha256=hashlib.sha256(shown.encode()).hexdigest(),
            counts={"em_dash": text.count("\u2014")},
        )
        for kind, text in texts.items()
        if text and (shown := quoting.house_punctuation(text)) != text
    ]
