"""`argusic sandbox image | worker | cancel | stop-all | keys sweep | keys stand-in | runs`:
thin shims over the runner's use cases (ARCHITECTURE.md, "Runner")."""

from __future__ import annotations

import os
import socket
from typing import Any

import click
import msgspec

from api.cli.output import Session, emit, json_option, pass_session, serve_stand_in
from api.services.operators import operator_signer
from api.services.reproduce import reproduce
from api.services.run_end import cancel, stop_all
from api.services.runs_view import list_runs
from api.services.schedule import schedule
from api.services.sweep import sweep
from api.services.worker import run_worker
from api.wiring import (
    build_images_now,
    build_runner,
    engine_images,
    keys_stand_in,
    orchestrator_config,
)
from domain.events.operators import RequestReproduction


class Swept(msgspec.Struct, frozen=True, kw_only=True):
    keys_deleted: int
    sandboxes_removed: int
    runs_closed: list[str]


def _runner(session: Session) -> Any:
    return build_runner(session.settings, session.argusic.ledger)


@click.group("sandbox")
def sandbox_group() -> None:
    """The single-use sandboxes' images."""


@sandbox_group.command("image")
@json_option
def sandbox_image(as_json: bool) -> None:
    """Build the local sandbox images (no registry needed)."""
    images = build_images_now()
    emit(
        {"images": [{"tag": i.tag, "digest": i.digest} for i in images]},
        lambda d: "\n".join(f"{i['tag']} {i['digest']}" for i in d["images"]),
    )


@click.command("worker")
@click.option("--once", is_flag=True, help="Stop when nothing claimable is left.")
@click.option("--concurrency", type=click.IntRange(min=1), default=None)
@click.option("--worker-id", default=None, help="Default: this host's name.")
@click.option(
    "--gpu", is_flag=True, help="This host has a GPU: also claim runs that need one (first)."
)
@json_option
@pass_session
def worker_command(
    session: Session,
    *,
    once: bool,
    concurrency: int | None,
    worker_id: str | None,
    gpu: bool,
    as_json: bool,
) -> None:
    """Execute scheduled runs; safe to kill and restart."""
    runner = _runner(session)
    worker = worker_id or os.environ.get("ARGUSIC_WORKER_ID") or socket.gethostname()
    concurrency = concurrency or runner.config.sandbox.concurrency
    report = run_worker(runner, worker, concurrency, once=once, gpu=gpu)
    emit(
        {"worker": worker, "gpu": gpu, "recovered": report.recovered, "executed": report.executed},
        lambda d: f"worker {d['worker']}: {len(d['executed'])} runs executed",
    )


@click.command("reproduce")
@click.argument("run_id")
@click.option("--as", "signer_name", required=True, help="The operator signing the request.")
@click.option("--runs", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--requested-by", default=None, help="Who asked (default: the signer).")
@click.option("--note", default="", help="Why, for the record.")
@json_option
@pass_session
def reproduce_command(
    session: Session,
    run_id: str,
    *,
    signer_name: str,
    runs: int,
    requested_by: str | None,
    note: str,
    as_json: bool,
) -> None:
    """Run a recorded result again as it ran (methodology section 18), RUNS times."""
    argusic = session.argusic
    request = RequestReproduction(
        run_id=run_id, requested_by=requested_by or signer_name, runs=runs, note=note
    )
    asked = reproduce(
        argusic.ledger,
        argusic.actions,
        operator_signer(argusic.settings.home, signer_name),
        request,
        images=engine_images(),
        store=argusic.store,
        config=orchestrator_config(),
        clock=argusic.clock,
    )
    emit(asked, lambda d: f"{d.request}: " + ", ".join(d.runs))


@click.command("cancel")
@click.argument("run_id")
@click.option("--by", default=lambda: os.environ.get("USER", "operator"))
@json_option
@pass_session
def cancel_command(session: Session, run_id: str, by: str, as_json: bool) -> None:
    """Cancel one run: its key deleted, its sandbox removed, recorded."""
    state = cancel(_runner(session), run_id, by, "cancelled by an operator")
    emit(
        {"run_id": run_id, "phase": state.phase, "ended": state.ended},
        lambda d: f"run {d['run_id']}: {d['ended']} ({d['phase']})",
    )


@click.command("stop-all")
@click.option("--by", default=lambda: os.environ.get("USER", "operator"))
@json_option
@pass_session
def stop_all_command(session: Session, by: str, as_json: bool) -> None:
    """Emergency stop: every run in progress cancelled, keys deleted, sandboxes removed."""
    stopped = stop_all(_runner(session), by)
    emit({"stopped": stopped}, lambda d: f"{len(d['stopped'])} runs stopped")


@click.group("keys")
def keys_group() -> None:
    """Per-run model keys."""


@keys_group.command("sweep")
@json_option
@pass_session
def keys_sweep(session: Session, as_json: bool) -> None:
    """Delete every run key and sandbox no run in progress owns."""
    report = sweep(_runner(session))
    emit(
        Swept(
            keys_deleted=len(report.keys_deleted),
            sandboxes_removed=len(report.sandboxes_removed),
            runs_closed=report.runs_closed,
        ),
        lambda r: f"{r.keys_deleted} keys deleted, {r.sandboxes_removed} sandboxes removed",
    )


@keys_group.command("stand-in")
@click.option("--port", type=int, default=0, show_default=True)
def keys_stand_in_command(port: int) -> None:
    """Serve the key-provisioning API on 127.0.0.1 (tests, demo); token ARGUSIC_KEYS_TOKEN."""
    serve_stand_in(keys_stand_in(os.environ, port))


@click.command("runs")
@click.option("--state", type=click.Choice(["scheduled", "running", "finished"]), default=None)
@json_option
@pass_session
def runs_command(session: Session, state: str | None, as_json: bool) -> None:
    """The runner's runs, where they are, and their outcome once recorded."""
    argusic = session.argusic
    document = list_runs(argusic.ledger, state, argusic.clock())  # type: ignore[arg-type]
    emit(
        document,
        lambda d: (
            "\n".join(
                f"{r.run_id}  {r.state:9}  {r.ended or '-':9}  {r.outcome or '-':9}  {r.project}"
                + (f"  (waits for {r.waiting})" if r.waiting else "")
                for r in d.runs
            )
            or "no runs"
        ),
    )


@click.command("schedule")
@click.option("--cycle", required=True, help="The cycle, e.g. 2026-10 (its record ingested).")
@json_option
@pass_session
def schedule_command(session: Session, cycle: str, as_json: bool) -> None:
    """Plan every run the cycle needs: three per roster agent and project, and the verdict
    chain's stronger agent before v1.3; a second call adds nothing."""
    argusic = session.argusic
    report = schedule(argusic.ledger, cycle, orchestrator_config(), argusic.clock)
    emit(report, lambda r: f"cycle {r.cycle}: {len(r.scheduled)} runs scheduled")


commands = (
    schedule_command,
    worker_command,
    reproduce_command,
    cancel_command,
    stop_all_command,
    runs_command,
)
groups = (sandbox_group, keys_group)
