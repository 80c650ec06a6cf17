"""The composition root: read the configuration, build the ledger on the chosen backend and
every adapter, and hand the entry points what the use cases need. The only place adapters are
built."""

from __future__ import annotations

import gc
import os
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlsplit

import structlog
from eventsourcing.sqlite import SQLiteDatastore

from adapters.artifacts import FileArtifactStore
from adapters.banners import banner_patterns
from adapters.clock import utc_now
from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from adapters.github_api import ApiFailure, GitHubApi
from adapters.orchestrator_config import DEFAULT as DEFAULT_ORCHESTRATOR_CONFIG
from adapters.orchestrator_config import config_path, load_config
from adapters.recording import SessionRecorder, cut_torn_write
from adapters.sources.config import SourcesConfig, load_sources_config
from adapters.sources.github import CommitResolver
from adapters.sources.http import HttpFetcher
from adapters.sources.reader import SourceReader
from adapters.video import ScreenVideo, TerminalRenderer
from api.services.operators import ActionDesk
from api.services.ports import Banners, EvidenceStore, Renderer, SourceReading
from api.services.queries import LedgerQueries, MethodologyQueries, SiiqQueries
from api.services.record_run import RunRecording
from api.services.reproduce import Images
from api.services.run_log import RunLog
from api.services.runner_ports import Runner
from api.services.sources import SourcesQueries
from api.services.timeline import Timelines
from domain.errors import IntegrityFailure, SetupError
from domain.events import ApiAnswer
from domain.runner.config import OrchestratorConfig
from ledger.ledger import Ledger
from ledger.note import NoteError, Signer, Verifier
from ledger.postgres import PostgresLedgerDatastore, PostgresLedgerRecorder
from ledger.sealing import Sealer, utc_text
from ledger.signing_key import SigningKeyMissing, load_signer, new_ledger_signer, store_signer
from ledger.sqlite import SQLiteLedgerRecorder
from ledger.store import LedgerRecorder

if TYPE_CHECKING:  # the runner's adapters load only for the runner's commands (start-up time)
    from adapters.keys_stand_in import KeyStandIn
    from adapters.openrouter_keys import OpenRouterKeys
    from adapters.sandbox_images import BuiltImage

LOG_ORIGIN = "argusic.local/ledger"
"""The start of every ledger's checkpoint origin (and signing key name): `init` adds a
fingerprint of the ledger's own key, so no two ledgers share an origin."""


CLOCK = utc_now
"""The clock commands read (UTC)."""


GITHUB_FAILURES: tuple[type[Exception], ...] = (ApiFailure,)
"""What GitHub's adapter raises for a round of `pool candidates` it could not finish."""


class ConfigurationError(SetupError):
    """The configuration or the database state does not allow the command (exit 2)."""


@dataclass(frozen=True)
class Settings:
    database_url: str
    home: Path
    log_format: str | None
    sources_config: Path = Path("config/sources.toml")
    orchestrator_config: Path = DEFAULT_ORCHESTRATOR_CONFIG
    """The runner's budgets and key limit, which the methodology page states (section 7)."""
    github_api: str = "https://api.github.com"
    """Where the project pool's candidates are read (`ARGUSIC_GITHUB_API`)."""
    github_token: str | None = field(default=None, repr=False)
    """`ARGUSIC_GITHUB_TOKEN`, optional (a higher rate limit); never shown."""
    artifacts_url: str | None = None
    """`ARGUSIC_ARTIFACTS_URL`: where evidence is stored, `file:///path` (default
    `ARGUSIC_HOME/artifacts`) or `s3://bucket/prefix`."""
    s3_endpoint: str | None = None
    """`ARGUSIC_S3_ENDPOINT`, the S3 gateway of an `s3://` artifact store (AWS's when unset);
    its credentials are the usual `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`."""
    public_key: Path | None = None
    """`ARGUSIC_LEDGER_PUBLIC_KEY`: a file holding the ledger's verifier key, all a reader
    (`argusic serve --read-only`) needs; it never loads the signing key."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        return cls(
            database_url=env.get("ARGUSIC_DATABASE_URL", "sqlite:///var/argusic.db"),
            home=Path(env.get("ARGUSIC_HOME", "./var")),
            log_format=env.get("ARGUSIC_LOG_FORMAT"),
            sources_config=Path(env.get("ARGUSIC_SOURCES_CONFIG", "config/sources.toml")),
            orchestrator_config=config_path(env),
            github_api=env.get("ARGUSIC_GITHUB_API", "https://api.github.com"),
            github_token=env.get("ARGUSIC_GITHUB_TOKEN") or None,
            artifacts_url=env.get("ARGUSIC_ARTIFACTS_URL") or None,
            s3_endpoint=env.get("ARGUSIC_S3_ENDPOINT") or None,
            public_key=Path(env["ARGUSIC_LEDGER_PUBLIC_KEY"])
            if env.get("ARGUSIC_LEDGER_PUBLIC_KEY")
            else None,
        )

    @property
    def key_path(self) -> Path:
        return self.home / "keys" / "ledger.key"


COLLECTOR_THRESHOLDS = (100_000, 50, 100)
"""The cyclic garbage collector's thresholds in every `argusic` process (docs/performance.md,
"Public reads"): a fold allocates millions of objects that live as long as its state, and
Python's default (700, 10, 10) scans them again and again while they are made (a third of a cold
leaderboard's time at 10,000 runs)."""


def tune_collector() -> None:
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def settle(argusic: Argusic) -> None:
    """A server's start: the public reader's state made before the first request, the latest
    approved position's (from the model stored there; which position that is, from the
    authority events since; a writer makes the head's too, as it stores the model), and the
    ledger's tree held for the proofs (`Ledger.hold_tree`); then all the process holds so far
    moved out of the cyclic collector's sight (`gc.freeze`), as it lives as long as the
    process and holds no cycle: each later pass of the collector would scan it again. With the
    database away, the first read folds, and the first proof grows the tree, instead."""
    log = structlog.get_logger()
    try:
        approved = argusic.public.published_position()
        argusic.public.reader.look(lambda _state, _at: None, approved)
    except Exception as e:  # the server starts all the same and says why its reads fail
        log.warning("read model not folded at start", error=str(e))
    try:
        argusic.ledger.hold_tree()
    except IntegrityFailure as e:  # no proof will be made until a new checkpoint checks out
        log.error("Merkle tree refused at start", error=str(e))
    except Exception as e:
        log.warning("Merkle tree not held at start", error=str(e))
    gc.freeze()


def open_recorder(url: str, sealer: Sealer) -> LedgerRecorder:
    """The recorder for `sqlite:///path` or `postgresql://user:password@host:port/db?schema=s`."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = Path(unquote(parts.path[1:]))
        path.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteLedgerRecorder(
            SQLiteDatastore(str(path), lock_timeout=30, originator_id_type="text"), sealer
        )
    if parts.scheme in ("postgresql", "postgres"):
        query = parse_qs(parts.query)
        datastore = PostgresLedgerDatastore(
            dbname=unquote(parts.path.lstrip("/")) or "postgres",
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 5432,
            user=unquote(parts.username or "postgres"),
            password=unquote(parts.password or ""),
            schema=query.get("schema", ["public"])[0],
            originator_id_type="text",
            pool_size=2,
            max_overflow=8,
            read_only=not sealer.signs,
        )
        return PostgresLedgerRecorder(datastore, sealer)
    raise ConfigurationError(f"ARGUSIC_DATABASE_URL {url!r}: use sqlite:/// or postgresql://")


def artifact_store(settings: Settings) -> EvidenceStore:
    """The evidence store of `settings.artifacts_url`: `file:///path` (by default
    `ARGUSIC_HOME/artifacts`) or `s3://bucket/prefix` through `settings.s3_endpoint`."""
    url = settings.artifacts_url
    if url is None:
        return FileArtifactStore(settings.home / "artifacts")
    parts = urlsplit(url)
    if parts.scheme == "file" and parts.path.startswith("/") and not parts.netloc:
        return FileArtifactStore(Path(unquote(parts.path)))
    if parts.scheme == "s3" and parts.netloc:
        from adapters.s3_artifacts import S3ArtifactStore, connect  # noqa: PLC0415 (start-up)

        return S3ArtifactStore(connect(settings.s3_endpoint), parts.netloc, unquote(parts.path))
    raise ConfigurationError(
        f"ARGUSIC_ARTIFACTS_URL {url!r}: use file:///absolute/path or s3://bucket/prefix"
    )


def open_reader(settings: Settings) -> Ledger:
    """The ledger of an initialised database for a reader: checkpoints checked with the public
    key at `ARGUSIC_LEDGER_PUBLIC_KEY`, nothing signed, appended or stored (docs/scale.md)."""
    if settings.public_key is None:
        raise ConfigurationError(
            "ARGUSIC_LEDGER_PUBLIC_KEY is not set: a reader needs the file holding the "
            "ledger's public key (`argusic ledger public-key`)"
        )
    try:
        verifier = Verifier.parse(settings.public_key.read_text().strip())
    except (OSError, NoteError) as e:
        raise ConfigurationError(f"ARGUSIC_LEDGER_PUBLIC_KEY {settings.public_key}: {e}") from e
    recorder = open_recorder(settings.database_url, Sealer(None, utc_now, verifier))
    if recorder.pending_migrations():
        raise ConfigurationError("the database schema is not up to date: run `argusic init`")
    if str(verifier) not in recorder.registered_keys():
        raise ConfigurationError(
            f"the key in {settings.public_key} is not this ledger's: "
            "check ARGUSIC_LEDGER_PUBLIC_KEY"
        )
    return Ledger(recorder, utc_now)


def _sealer(signer: Signer) -> Sealer:
    return Sealer(signer, utc_now)


def init(settings: Settings) -> tuple[Ledger, list[str]]:
    """Create or upgrade the schema, make the signing key if missing, seal the empty tree."""
    signer = load_signer(settings.key_path)
    recorder = open_recorder(settings.database_url, _sealer(signer or Signer.generate(LOG_ORIGIN)))
    applied = recorder.migrate()
    if signer is None:
        if recorder.registered_keys():
            raise SigningKeyMissing(
                f"the ledger's signing key is not at {settings.key_path}: restore it, "
                "a new key cannot vouch for checkpoints the old one signed"
            )
        signer = store_signer(settings.key_path, new_ledger_signer(LOG_ORIGIN))
        recorder.sealer = _sealer(signer)
    recorder.register_key(str(signer.verifier), utc_text(utc_now()))
    recorder.seal_empty()
    return Ledger(recorder, utc_now), applied


def open_ledger(settings: Settings) -> Ledger:
    """The ledger of an initialised database, signing with the key `init` made."""
    signer = load_signer(settings.key_path)
    if signer is None:
        raise ConfigurationError(f"no ledger key at {settings.key_path}: run `argusic init`")
    recorder = open_recorder(settings.database_url, _sealer(signer))
    if recorder.pending_migrations():
        raise ConfigurationError("the database schema is not up to date: run `argusic init`")
    if str(signer.verifier) not in recorder.registered_keys():
        raise ConfigurationError(
            f"the key at {settings.key_path} is not this ledger's key: check ARGUSIC_HOME"
        )
    return Ledger(recorder, utc_now)


class Argusic:
    """Everything the entry points hand to the use cases, built on one open ledger."""

    def __init__(
        self,
        settings: Settings,
        ledger: Ledger,
        *,
        store: EvidenceStore | None = None,
        banners: Banners = banner_patterns,
    ) -> None:
        self.settings = settings
        self.ledger = ledger
        self.store: EvidenceStore = store or artifact_store(settings)
        self.banners = banners
        self.ledger_queries = LedgerQueries(ledger)
        timelines = Timelines(self.store, ledger.stream)
        self.methodology = MethodologyQueries(
            ledger, config=lambda: self.orchestrator, timelines=timelines
        )
        self.siiq = SiiqQueries(ledger)
        self.sources = SourcesQueries(ledger)
        # what the public sees: as of an approved position (the latest by default), the secret
        # pool left out, and the ledger up to the latest approved position
        self.public = MethodologyQueries(
            ledger, published=True, config=lambda: self.orchestrator, timelines=timelines
        )
        published = self.public.published_position
        self.public_siiq = SiiqQueries(ledger, published)
        self.public_sources = SourcesQueries(ledger, published)
        self.public_ledger = LedgerQueries(ledger, published)
        self.clock = utc_now
        self.renderer: Renderer = TerminalRenderer()
        self.actions = ActionDesk(ledger, self.methodology.reader)

    @classmethod
    def open(cls, settings: Settings) -> Argusic:
        return cls(settings, open_ledger(settings))

    @classmethod
    def open_reader(cls, settings: Settings) -> Argusic:
        """For a server that only reads: the public key alone (`open_reader`)."""
        return cls(settings, open_reader(settings))

    @cached_property
    def orchestrator(self) -> OrchestratorConfig:
        """The orchestrator's configuration in force (`settings.orchestrator_config`), read once:
        the server reads it as it starts, so the page states what the runner runs with."""
        return load_config(self.settings.orchestrator_config)

    def sources_config(self) -> SourcesConfig:
        """The SI-IQ sources of `ARGUSIC_SOURCES_CONFIG` (default `config/sources.toml`)."""
        return load_sources_config(self.settings.sources_config)

    @contextmanager
    def source_reader(self, config: SourcesConfig) -> Iterator[SourceReading]:
        """A reader for one round of fetches: one HTTP client, every file archived by its
        SHA-256 under ARGUSIC_HOME/sources."""
        with HttpFetcher(config.limits) as fetcher:
            archive = FileArtifactStore(self.settings.home / "sources")
            resolver = CommitResolver(fetcher, config.github)
            # late-bound: the clock may be replaced after the application is built
            yield SourceReader(fetcher, resolver, archive, lambda: self.clock())  # noqa: PLW0108

    @contextmanager
    def github(self, held: Mapping[str, ApiAnswer]) -> Iterator[GitHubApi]:
        """GitHub's API for one round of `pool candidates`, every answer archived by its
        SHA-256 under ARGUSIC_HOME/pool, each request conditional on what `held` answered."""
        archive = FileArtifactStore(self.settings.home / "pool")
        settings = self.settings
        with GitHubApi(settings.github_api, archive, token=settings.github_token, held=held) as api:
            yield api

    def close(self) -> None:
        self.ledger.close()


# --- the runner (issue 12): sandboxes, keys, sources, recordings -----------------------------


def ledger_tag(settings: Settings) -> str:
    """Which ledger owns a sandbox or a key: its signing key's id (labels, key names)."""
    signer = load_signer(settings.key_path)
    if signer is None:
        raise ConfigurationError(f"no ledger key at {settings.key_path}: run `argusic init`")
    return signer.verifier.key_id.hex()


def key_provider(env: Mapping[str, str], timeout: float) -> OpenRouterKeys:
    """The key-management API: ARGUSIC_KEYS_URL (default the router's) with the management
    token ARGUSIC_KEYS_TOKEN (required; never logged)."""
    from adapters.openrouter_keys import DEFAULT_URL, OpenRouterKeys, Secret  # noqa: PLC0415

    token = env.get("ARGUSIC_KEYS_TOKEN")
    if not token:
        raise ConfigurationError("ARGUSIC_KEYS_TOKEN is not set: the runner needs the key API")
    return OpenRouterKeys(env.get("ARGUSIC_KEYS_URL") or DEFAULT_URL, Secret(token), timeout)


def orchestrator_config(env: Mapping[str, str] = os.environ) -> OrchestratorConfig:
    """The configuration in force (`ARGUSIC_ORCHESTRATOR_CONFIG`, default
    `config/orchestrator.toml`)."""
    return load_config(config_path(env))


def build_runner(settings: Settings, ledger: Ledger, env: Mapping[str, str] = os.environ) -> Runner:
    """The runner's use cases' ports, from the configuration in force."""
    from adapters.docker_sandbox import DockerSandboxes  # noqa: PLC0415
    from adapters.sandbox_images import INSTRUCTIONS  # noqa: PLC0415
    from adapters.source_fetch import GitSource  # noqa: PLC0415

    config = orchestrator_config(env)
    sandbox = config.sandbox
    keys = key_provider(env, sandbox.keys_timeout_seconds)
    store = artifact_store(settings)
    return Runner(
        log=RunLog(ledger),
        sandboxes=DockerSandboxes(env.get("DOCKER_HOST"), sandbox.docker_timeout_seconds),
        keys=keys,
        source=GitSource(timeout=max(60.0, sandbox.docker_timeout_seconds)),
        store=store,
        record_run=RunRecording(ledger, store, banner_patterns),
        config=config,
        ledger_tag=ledger_tag(settings),
        model_base_url=env.get("ARGUSIC_MODEL_BASE_URL") or keys.base_url,
        instructions=INSTRUCTIONS.read_bytes(),
        evidence_root=settings.home / "runs",
        open_recorder=lambda cast, log, title, timestamp: SessionRecorder(
            cast, log, title=title, timestamp=timestamp
        ),
        cut_torn_write=cut_torn_write,
        clock=utc_now,
        nonce=lambda: secrets.token_hex(4),
        shared_keys={k: v for k, v in env.items() if k.endswith("_API_KEY")},
        open_screen=ScreenVideo,
        screen_fps=ScreenVideo.fps,
    )


def engine_images(env: Mapping[str, str] = os.environ) -> Images:
    """The container engine in force, for what images it still holds (`argusic reproduce`)."""
    from adapters.docker_sandbox import DockerSandboxes  # noqa: PLC0415

    return DockerSandboxes(
        env.get("DOCKER_HOST"), orchestrator_config(env).sandbox.docker_timeout_seconds
    )


def build_images_now(env: Mapping[str, str] = os.environ) -> list[BuiltImage]:
    """`argusic sandbox image`: build the local sandbox images on the engine in force."""
    from adapters.docker_sandbox import DockerSandboxes  # noqa: PLC0415
    from adapters.sandbox_images import build_images  # noqa: PLC0415

    sandboxes = DockerSandboxes(env.get("DOCKER_HOST"), timeout=300)
    try:
        return build_images(sandboxes)
    finally:
        sandboxes.close()


def keys_stand_in(env: Mapping[str, str], port: int) -> KeyStandIn:
    """`argusic keys stand-in`: the local key API, answering ARGUSIC_KEYS_TOKEN."""
    from adapters.keys_stand_in import KeyStandIn  # noqa: PLC0415

    token = env.get("ARGUSIC_KEYS_TOKEN")
    if not token:
        raise ConfigurationError("ARGUSIC_KEYS_TOKEN is not set: the stand-in needs a token")
    return KeyStandIn(token, port)


def crosschecker(env: Mapping[str, str] = os.environ) -> ChatCrossChecker | None:
    """SI-IQ section 8's checker at ARGUSIC_CROSSCHECK_URL (an OpenAI-compatible chat-completions
    base URL), with ARGUSIC_CROSSCHECK_MODEL, ARGUSIC_CROSSCHECK_FAMILY (the model's family,
    section 8) and ARGUSIC_CROSSCHECK_TOKEN; None when unset (the update then halts)."""
    url = env.get("ARGUSIC_CROSSCHECK_URL")
    if not url:
        return None
    model = env.get("ARGUSIC_CROSSCHECK_MODEL") or "cross-check"
    token, family = (
        env.get("ARGUSIC_CROSSCHECK_TOKEN", ""),
        env.get("ARGUSIC_CROSSCHECK_FAMILY", ""),
    )
    return ChatCrossChecker(url, model, token, family)


def crosscheck_stand_in(port: int) -> CrossCheckStandIn:
    """`argusic crosscheck stand-in`: the local checker on 127.0.0.1."""
    return CrossCheckStandIn(port)
