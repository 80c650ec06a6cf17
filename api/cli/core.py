"""`argusic init | serve | demo | ingest`."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import click
import msgspec
import structlog

from api.cli.output import Session, emit, json_option, pass_session
from api.cli.workers import listening_sockets, run_workers
from api.services.demo import DemoReport, load_demo
from api.services.ingest import IngestReport, ingest
from api.wiring import Argusic, init, settle
from domain.errors import SetupError, UsageError

DEMO_DATA = Path(__file__).resolve().parents[2] / "scripts" / "demo"
log = structlog.get_logger()


class InitReport(msgspec.Struct, frozen=True, kw_only=True):
    applied_migrations: list[str]
    size: int
    public_key: str


@click.command("init")
@json_option
@pass_session
def init_command(session: Session, as_json: bool) -> None:
    """Create or upgrade the schema; make the ledger's signing key if missing."""
    ledger, applied = init(session.settings)
    log.info("ledger ready", migrations_applied=applied, size=ledger.size())
    report = InitReport(
        applied_migrations=applied,
        size=ledger.size(),
        public_key=str(ledger.recorder.sealer.verifier),
    )
    ledger.close()
    emit(report, lambda r: f"ledger ready: {r.size} events; verifier key {r.public_key}")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--read-only",
    is_flag=True,
    envvar="ARGUSIC_READ_ONLY",
    help="Only read (a replica's server): the ledger's public key from "
    "ARGUSIC_LEDGER_PUBLIC_KEY, never the signing key; nothing stored; operator actions 405.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes answering on the same port, each on a socket of its own.",
)
@click.option(
    "--fd",
    type=click.IntRange(0),
    help="Serve on this open listening socket (as `--workers` hands each worker its own).",
)
@pass_session
def serve_command(
    session: Session, *, host: str, port: int, read_only: bool, workers: int, fd: int | None
) -> None:
    """Serve the read API over HTTP (OpenAPI at /schema)."""
    # Imported here: the web stack would slow every other command's start.
    import uvicorn  # noqa: PLC0415

    from api.http import create_app  # noqa: PLC0415

    if workers > 1:
        if fd is not None:
            raise UsageError("--fd is one socket of one process: give --workers or --fd")
        sys.exit(_serve_workers(host, port, read_only, workers))
    argusic = Argusic.open_reader(session.settings) if read_only else session.argusic
    settle(argusic)
    # No `server` banner: what the server runs is nobody's business (issue 16).
    config = uvicorn.Config(
        create_app(argusic), host=host, port=port, log_config=None, server_header=False
    )
    server = uvicorn.Server(config)
    server.run(sockets=None if fd is None else [socket.socket(fileno=fd)])
    if not server.started:
        raise SetupError("the server did not start: its log above says why")


def _serve_workers(host: str, port: int, read_only: bool, workers: int) -> int:
    """`workers` processes of `argusic serve --fd`, each on a socket of its own (`workers`)."""
    try:
        sockets = listening_sockets(host, port, workers)
    except OSError as e:
        raise SetupError(f"cannot listen on {host}:{port}: {e.strerror}") from e
    port = sockets[0].getsockname()[1]
    command = [sys.executable, "-m", "api.cli", "serve", "--host", host, "--port", str(port)]
    return run_workers([*command, *(["--read-only"] if read_only else [])], sockets)


def _ingest_human(report: IngestReport | DemoReport) -> str:
    return (
        f"{report.records} records: {report.appended} events appended, "
        f"{report.unchanged} already recorded; ledger size {report.ledger_size}"
    )


def _ingest(argusic: Argusic, files: list[Path]) -> IngestReport:
    return ingest(argusic.ledger, files, argusic.store, argusic.banners)


@click.command("ingest")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@json_option
@pass_session
def ingest_command(session: Session, files: tuple[Path, ...], as_json: bool) -> None:
    """Append the records of FILES (JSON or JSON lines): all of them, or none."""
    emit(_ingest(session.argusic, list(files)), _ingest_human)


@click.command("demo")
@click.option("--if-empty", is_flag=True, help="Do nothing when the ledger already has events.")
@json_option
@pass_session
def demo_command(session: Session, if_empty: bool, as_json: bool) -> None:
    """Load the bundled demo data (the methodology's real changelog, a labelled demo cycle and
    a synthetic SI-IQ calibration) into an empty ledger."""
    argusic = session.argusic
    size = argusic.ledger.size()
    if size and if_empty:
        emit(
            DemoReport(records=0, appended=0, unchanged=0, ledger_size=size, siiq_accepted=None),
            lambda r: f"ledger already holds {r.ledger_size} events: demo not loaded",
        )
        return
    report = load_demo(
        DEMO_DATA,
        ledger=argusic.ledger,
        store=argusic.store,
        banners=argusic.banners,
        home=argusic.settings.home,
    )
    emit(report, _ingest_human)


commands = (init_command, serve_command, ingest_command, demo_command)
