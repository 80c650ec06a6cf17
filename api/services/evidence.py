"""The served copies of a run's evidence (methodology section 17): each file streamed through
the transforms into the evidence store as it is read, once; the domain decides what is
recorded of it (`domain.evidence.withholding`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from api.services.ports import Banners, EvidenceStore
from domain.events import EvidenceTransformed, Fingerprint, RecordingWithheld, RerunRequested
from domain.evidence.asciicast import RecordingError
from domain.evidence.masking import Withhold
from domain.evidence.pipeline import Applied, Derivation, section_17
from domain.evidence.withholding import transformed, withhold


class DerivedFile(NamedTuple):
    """One file as received: its fingerprint, and the transforms applied or why withheld."""

    raw: Fingerprint
    applied: list[Applied]
    withheld: str | None

    def events(
        self, run_id: str, kind: str
    ) -> list[EvidenceTransformed | RecordingWithheld | RerunRequested]:
        if self.withheld is not None:
            return withhold(run_id, kind, self.raw.sha256, self.withheld)
        return transformed(run_id, kind, self.applied)


class _Served(NamedTuple):
    applied: list[Applied]
    withheld: str | None


class EvidenceIntake:
    """Receives evidence files, each read once per intake however many runs name it: stored
    as it came and, when asked, derived into its served copy in the same pass. A file derived
    before with the same model key and harness is not derived again."""

    def __init__(self, store: EvidenceStore, banners: Banners) -> None:
        self.store, self.banners = store, banners
        self.received: dict[Path, Fingerprint] = {}
        self.served: dict[tuple[str, str, str | None, str], _Served] = {}

    def fingerprints(self, files: Mapping[str, Path]) -> dict[str, Fingerprint]:
        """Each file stored as it came, without a served copy."""
        found = {}
        for kind, path in files.items():
            if path not in self.received:
                with self.store.receive(path) as arrival:
                    pass
                self.received[path] = arrival.fingerprint
            found[kind] = self.received[path]
        return found

    def derive(
        self, files: Mapping[str, Path], harness: str, model_key: str | None
    ) -> dict[str, DerivedFile]:
        """Each file stored as it came and its served copy derived (section 17)."""
        derived = {}
        for kind, path in files.items():
            raw = self.received.get(path)
            if raw is None:
                with self.store.receive(path) as arrival:
                    served = self._serve(arrival, kind, harness, model_key)
                raw = self.received[path] = arrival.fingerprint
                self.served[raw.sha256, kind, model_key, harness] = served
            key = (raw.sha256, kind, model_key, harness)
            if key not in self.served:
                self.served[key] = self._serve(
                    self.store.read(raw.sha256), kind, harness, model_key
                )
            derived[kind] = DerivedFile(raw, *self.served[key])
        return derived

    def _serve(
        self, chunks: Iterable[bytes], kind: str, harness: str, model_key: str | None
    ) -> _Served:
        derivation = Derivation(section_17([model_key] if model_key else [], self.banners(harness)))
        derive = derivation.cast if kind == "cast" else derivation.log
        try:
            self.store.put_stream(derive(chunks))
        except RecordingError as e:
            return _Served([], f"the recording cannot be parsed: {e}")
        except Withhold as e:
            return _Served([], e.reason)
        return _Served(derivation.applied(), None)
