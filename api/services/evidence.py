"""A run's evidence as it arrives (methodology section 17), in one pass over each file: security
redaction applied before anything is written (the stored layer, and the run's evidence
fingerprint, is the redacted file), then generated-key masking and neutral branding into the
served copy. What arrived is hashed only to tell a file recorded before issue 26 again: no hash
of bytes that held a credential is recorded or published. The domain decides what is recorded
of it (`domain.evidence.withholding`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from api.services.ports import Banners, EvidenceStore
from domain.events import (
    Evidence,
    EvidenceTransformed,
    Fingerprint,
    RecordingWithheld,
    RerunRequested,
)
from domain.evidence.archives import ArchiveFound, refusing_archives
from domain.evidence.asciicast import RecordingError
from domain.evidence.masking import Withhold
from domain.evidence.pipeline import Applied, Derivation, presentation, security_redaction
from domain.evidence.withholding import as_recorded, transformed, withhold

VIDEO = "video"
"""A desktop run's raw video (section 17): kept and served as it arrived, or withheld."""

NOTHING_KEPT = Fingerprint(sha256=hashlib.sha256(b"").hexdigest(), bytes=0)
"""What is kept of a file that is or holds an archive (section 17): nothing."""


class Received(NamedTuple):
    """One file as received: what is kept of it, and what arrived (never recorded)."""

    kept: Fingerprint
    """The file as kept: what arrived, security-redacted before anything was written; the
    run's evidence fingerprint (section 17: "el archivo en bruto ... con su propia huella")."""
    arrived: Fingerprint
    """What arrived, credentials and all: compared with a run recorded before issue 26 (whose
    evidence fingerprint it was), never recorded or shown."""


class DerivedFile(NamedTuple):
    """One file as received, the transforms applied (the security redaction, from the arrival
    to the stored file, always), or why it is withheld."""

    received: Received
    applied: list[Applied]
    withheld: str | None

    def events(
        self, run_id: str, kind: str
    ) -> list[EvidenceTransformed | RecordingWithheld | RerunRequested]:
        events = transformed(run_id, kind, self.applied)
        if self.withheld is not None:
            events += withhold(run_id, kind, self.received.kept.sha256, self.withheld)
        return events


class _Arrival:
    """A source file's chunks, hashed as they pass."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.digest, self.size = hashlib.sha256(), 0
        self._chunks = self._passing(chunks)

    def _passing(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.digest.update(chunk)
            self.size += len(chunk)
            yield chunk

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def fingerprint(self) -> Fingerprint:
        for _ in self._chunks:  # what the reader left
            pass
        return Fingerprint(sha256=self.digest.hexdigest(), bytes=self.size)


def received(store: EvidenceStore, path: Path, kind: str, model_key: str | None) -> Received:
    """A file's fingerprints as `EvidenceIntake.derive` would keep it, nothing stored: one
    read, through the security redaction alone."""
    keys = [model_key] if model_key else []
    if kind == VIDEO:
        return _video(store, path).received
    try:
        try:
            return _redacted(store, path, kind, kind, keys)
        except RecordingError:  # kept redacted as plain text
            return _redacted(store, path, kind, "log", keys)
    except ArchiveFound:
        return Received(NOTHING_KEPT, NOTHING_KEPT)


def _video(store: EvidenceStore, path: Path) -> DerivedFile:
    """A raw video stored as it arrived (pixels cannot be redacted: a video that may show a
    credential is withheld, `credential_may_be_on_screen`), and served as recorded."""
    arrival = _Arrival(store.source(path))
    with store.storing() as stored:
        for chunk in arrival:
            stored.write(chunk)
    assert stored.fingerprint is not None  # set when the block ended well
    kept = stored.fingerprint
    return DerivedFile(Received(kept, arrival.fingerprint()), [as_recorded(kept.sha256)], None)


def _redacted(
    store: EvidenceStore, path: Path, kind: str, read_as: str, keys: list[str]
) -> Received:
    arrival = _Arrival(refusing_archives(store.source(path), kind, inside=read_as == "log"))
    digest, size = hashlib.sha256(), 0
    for chunk in _stream(Derivation(security_redaction(keys)), read_as, arrival):
        digest.update(chunk)
        size += len(chunk)
    return Received(Fingerprint(sha256=digest.hexdigest(), bytes=size), arrival.fingerprint())


def recorded_evidence(recorded: Evidence, files: Mapping[str, Received]) -> Evidence:
    """The evidence of a run received again: its files as kept, or, for a run recorded before
    issue 26 (its fingerprints were of what arrived), as they arrived, where those are equal."""
    arrived = Evidence(**{kind: file.arrived for kind, file in files.items()})
    kept = Evidence(**{kind: file.kept for kind, file in files.items()})
    return arrived if recorded == arrived else kept


def _tapped(chunks: Iterable[bytes], write: Callable[[bytes], None]) -> Iterator[bytes]:
    for chunk in chunks:
        write(chunk)
        yield chunk


class EvidenceIntake:
    """Receives evidence files, each read once per intake however many runs name it with the
    same model key and harness (another key means another redaction: the file is read again)."""

    def __init__(self, store: EvidenceStore, banners: Banners) -> None:
        self.store, self.banners = store, banners
        self.known: dict[tuple[Path, str, str | None], Received] = {}
        self.received: dict[tuple[Path, str, str | None, str], DerivedFile] = {}

    def fingerprints(self, files: Mapping[str, Path], model_key: str | None) -> dict[str, Received]:
        """Each file's fingerprints, nothing stored (a run recorded before)."""
        found = {}
        for kind, path in files.items():
            key = (path, kind, model_key)
            if key not in self.known:
                self.known[key] = received(self.store, path, kind, model_key)
            found[kind] = self.known[key]
        return found

    def derive(
        self, files: Mapping[str, Path], harness: str, model_key: str | None
    ) -> dict[str, DerivedFile]:
        """Each file received: stored redacted, and derived into its served copy."""
        derived = {}
        for kind, path in files.items():
            key = (path, kind, model_key, harness)
            if key not in self.received:
                self.received[key] = self._receive(path, kind, harness, model_key)
                self.known[path, kind, model_key] = self.received[key].received
            derived[kind] = self.received[key]
        return derived

    def _receive(self, path: Path, kind: str, harness: str, model_key: str | None) -> DerivedFile:
        keys = [model_key] if model_key else []
        if kind == VIDEO:
            return _video(self.store, path)
        try:
            try:
                return self._pass(path, kind, kind, keys, self.banners(harness))
            except RecordingError as e:
                # Not a recording, so not shown safe: kept redacted as plain text, and withheld.
                stored = self._pass(path, kind, "log", keys, None)
                return stored._replace(withheld=f"the recording cannot be parsed: {e}")
        except ArchiveFound as e:  # nothing of it was kept
            return DerivedFile(Received(NOTHING_KEPT, NOTHING_KEPT), [], e.reason)

    def _pass(
        self, path: Path, kind: str, read_as: str, keys: list[str], banners: list[str] | None
    ) -> DerivedFile:
        """One read of the file: arrival -> security redaction -> stored, then (with `banners`)
        -> presentation -> served; a served copy that cannot be shown safe is withheld, and the
        stored layer is kept whole in every case, unless the file is or holds an archive (then
        nothing of it is kept: `ArchiveFound`)."""
        chunks = refusing_archives(self.store.source(path), kind, inside=read_as == "log")
        arrival = _Arrival(chunks)
        redacting = Derivation(security_redaction(keys))
        presenting = None if banners is None else Derivation(presentation(banners))
        withheld = None
        with self.store.storing() as stored:
            redacted = _tapped(_stream(redacting, read_as, arrival), stored.write)
            try:
                if presenting is not None:
                    self.store.put_stream(_stream(presenting, read_as, redacted))
            except Withhold as e:
                withheld = e.reason
            for _ in redacted:
                pass
        served = [] if presenting is None or withheld else presenting.applied()
        assert stored.fingerprint is not None  # set when the block ended well
        kept = Received(stored.fingerprint, arrival.fingerprint())
        return DerivedFile(kept, redacting.applied() + served, withheld)


def _stream(derivation: Derivation, kind: str, chunks: Iterable[bytes]) -> Iterator[bytes]:
    return derivation.cast(chunks) if kind == "cast" else derivation.log(chunks)
