"""The `argusic` command: a small click group assembled from one module per command group."""

from __future__ import annotations

import sys

import click
from eventsourcing.persistence import PersistenceError

from api.cli import (
    core,
    hardware,
    ledger_commands,
    logs,
    methodology,
    operators,
    pool,
    presentation,
    runner,
    siiq,
    sources,
)
from api.cli.output import Session, emit_error
from api.services.ingest import IngestRejected
from api.wiring import Settings, tune_collector
from domain.errors import (
    ArgusicError,
    IntegrityFailure,
    InvalidInput,
    NotFound,
    SetupError,
    UsageError,
)

EXIT_REJECTED, EXIT_USAGE, EXIT_INTEGRITY = 1, 2, 3
EXIT_CODES: dict[type[Exception], int] = {
    NotFound: EXIT_REJECTED,
    InvalidInput: EXIT_REJECTED,
    UsageError: EXIT_USAGE,
    SetupError: EXIT_USAGE,
    PersistenceError: EXIT_USAGE,
    IntegrityFailure: EXIT_INTEGRITY,
}
"""Each of our error categories (and the database's, as eventsourcing translates them)."""


def exit_code(error: Exception) -> int | None:
    return next((code for kind, code in EXIT_CODES.items() if isinstance(error, kind)), None)


class ArgusicGroup(click.Group):
    """Maps every failure of ours to the contract's exit code, in one place; anything else is
    a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (ArgusicError, PersistenceError) as e:
            code = exit_code(e)
            if code is None:
                raise
            details = {"rejections": e.rejections} if isinstance(e, IngestRejected) else {}
            emit_error(ctx, str(e), code, **details)
        return None


@click.group(cls=ArgusicGroup)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Argusic: an auditable benchmark backend on an append-only, signed evidence ledger."""
    settings = Settings.from_env()
    logs.configure(settings.log_format)
    ctx.obj = Session(settings)


for command in (
    *core.commands,
    *methodology.commands,
    *operators.commands,
    *presentation.commands,
    ledger_commands.ledger,
    siiq.siiq,
    siiq.crosscheck,
    hardware.hardware_group,
    pool.pool,
    *runner.commands,
    *runner.groups,
):
    cli.add_command(command)


methodology.sources_command.add_command(sources.fetch_command)


def main() -> None:
    tune_collector()
    sys.exit(cli())
