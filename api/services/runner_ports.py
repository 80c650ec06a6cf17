"""The outside things the runner's use cases need, as small protocols (adapters implement
them; `api/wiring.py` builds them; tests may pass fakes)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from api.services.ports import EvidenceStore
from api.services.run_log import RunLog
from domain.runner.config import OrchestratorConfig
from domain.runner.sandbox import SandboxSpec
from domain.runs import RunRecord
from ledger.ledger import NewEvent


class SecretValue(Protocol):
    def reveal(self) -> str: ...


class KeyInfo(Protocol):
    @property
    def hash(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def usage(self) -> float | None: ...
    @property
    def expires_at(self) -> datetime | None: ...


class CreatedKey(Protocol):
    @property
    def info(self) -> KeyInfo: ...
    @property
    def secret(self) -> SecretValue: ...


class KeyProvider(Protocol):
    def create(self, name: str, limit_usd: float, expires_at: datetime) -> CreatedKey: ...
    def get(self, key_hash: str) -> KeyInfo | None: ...
    def delete(self, key_hash: str) -> bool: ...
    def list(self) -> Iterator[KeyInfo]: ...


class Fetched(Protocol):
    @property
    def commit(self) -> str: ...
    @property
    def tree(self) -> str: ...
    @property
    def archive(self) -> bytes: ...
    @property
    def archive_sha256(self) -> str: ...
    @property
    def method(self) -> Literal["git", "archive"]: ...


class SourceFetcher(Protocol):
    def fetch(self, repository: str, commit: str) -> Fetched: ...


class Session(Protocol):
    def chunks(self) -> Iterable[bytes]: ...
    def interrupt(self) -> None: ...
    def close(self) -> None: ...
    def exit_code(self) -> int | None: ...


class State(Protocol):
    @property
    def running(self) -> bool: ...
    @property
    def oom_killed(self) -> bool: ...
    @property
    def exit_code(self) -> int | None: ...


class Owned(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def labels(self) -> dict[str, str]: ...


class Sandboxes(Protocol):
    def image_digest(self, image: str) -> str: ...
    def has_image(self, digest: str) -> bool: ...
    def engine_version(self) -> str: ...
    def create(self, spec: SandboxSpec, files: bytes) -> str: ...
    def wait_display(self, name: str, display: str) -> None: ...
    def start_agent(
        self, name: str, command: list[str], environment: dict[str, str]
    ) -> Session: ...
    def settled_state(self, name: str, within: float = 2.0) -> State: ...
    def read_file(self, name: str, path: str, limit: int = 1 << 20) -> bytes | None: ...
    def kill(self, name: str) -> None: ...
    def remove(self, name: str) -> bool: ...
    def owned(self) -> Sequence[Owned]: ...


class Recorder(Protocol):
    def write(self, chunk: bytes) -> None: ...
    def close(self) -> None: ...


RecordRun = Callable[[RunRecord, Path, float], Sequence[NewEvent]]
"""The shared `record_run` use case, deciding (not appending) what a finished run records:
its RunRecorded (with the budget, in minutes, it ran with) and its evidence's section 17
events; the record's evidence paths are relative to the folder given."""


@dataclass
class Runner:
    """Everything the runner's use cases work with, built by `api/wiring.py`."""

    log: RunLog
    sandboxes: Sandboxes
    keys: KeyProvider
    source: SourceFetcher
    store: EvidenceStore
    record_run: RecordRun
    config: OrchestratorConfig
    ledger_tag: str
    """Which ledger owns what this runner makes outside (labels and key names)."""
    model_base_url: str
    instructions: bytes
    evidence_root: Path
    open_recorder: Callable[[Path, Path, str, int], Recorder]
    cut_torn_write: Callable[[Path], int]
    """A recording whose writer was killed cut back to its last whole event; the bytes cut."""
    clock: Callable[[], datetime]
    nonce: Callable[[], str]
    shared_keys: Mapping[str, str] = field(default_factory=dict)
    """Vendor-shared keys by variable name, for `shared_vendor` agents (never per-run)."""
    key_retry_seconds: float = 300
    rerun_delay_seconds: float = 60
    """An aborted run's rerun waits this long, doubled for each generation (capped at 1 h)."""
    poll_seconds: float = 0.5
    open_screen: Callable[[Path], Recorder] | None = None
    """A desktop run's raw video, written on the host as frames arrive (section 17)."""
    screen_fps: float = 2

    def video_path(self, run_id: str) -> Path:
        """A desktop run's raw video, beside its session files."""
        return self.evidence_paths(run_id)[0].with_name("screen.mkv")

    def evidence_paths(self, run_id: str) -> tuple[Path, Path]:
        folder = self.evidence_root / run_id.replace("/", "_")
        return folder / "session.cast", folder / "session.log"

    def report_path(self, run_id: str) -> Path:
        """Where the agent's report waits, beside the session files, until the run is closed:
        a restart that closes the run reads it there."""
        return self.evidence_paths(run_id)[0].with_name("report.json")

    def keep_report(self, run_id: str, report: bytes) -> None:
        path = self.report_path(run_id)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_bytes(report)

    def kept_report(self, run_id: str) -> bytes | None:
        path = self.report_path(run_id)
        return path.read_bytes() if path.exists() else None

    def discard_session(self, run_id: str) -> None:
        """Drop a closed run's session files as they arrived: the ledger holds their
        fingerprints and the artifact store their kept copies, and what arrived may hold the
        run's key (never kept at rest, section 17)."""
        cast, log = self.evidence_paths(run_id)
        for path in (cast, log, self.report_path(run_id), self.video_path(run_id)):
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else is there, keep it
            cast.parent.rmdir()
