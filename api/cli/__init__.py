"""The `argusic` command: a small click group assembled from one module per command group."""

from __future__ import annotations

import sys

import click
import msgspec
from eventsourcing.persistence import PersistenceError

from api import logs
from api.cli import core, hardware, ledger_commands, methodology, runner, siiq
from api.cli.output import Session, emit_error
from api.ingest import IngestRejected
from api.wiring import ConfigurationError, Settings
from domain.errors import ArgusicError, InvalidInput
from domain.hardware import HardwareInputError
from domain.siiq.data import InputError
from ledger.keys import SigningKeyMissing
from ledger.ledger import LedgerIntegrityError
from ledger.merkle import ProofError
from ledger.store import MigrationError

EXIT_REJECTED, EXIT_USAGE, EXIT_INTEGRITY = 1, 2, 3


class ArgusicGroup(click.Group):
    """Maps every failure to the contract's exit code, in one place."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except IngestRejected as e:
            emit_error(ctx, str(e), EXIT_REJECTED, rejections=e.rejections)
        except (LookupError, ProofError, msgspec.ValidationError, InputError) as e:
            emit_error(ctx, str(e), EXIT_REJECTED)
        except (ConfigurationError, SigningKeyMissing, PersistenceError, HardwareInputError) as e:
            emit_error(ctx, str(e), EXIT_USAGE)
        except (LedgerIntegrityError, MigrationError) as e:
            emit_error(ctx, str(e), EXIT_INTEGRITY)
        except InvalidInput as e:
            emit_error(ctx, str(e), EXIT_REJECTED)
        except ArgusicError as e:  # setup: the engine, the key API, the configuration
            emit_error(ctx, str(e), EXIT_USAGE)
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
    ledger_commands.ledger,
    siiq.siiq,
    hardware.hardware_group,
    *runner.commands,
    *runner.groups,
):
    cli.add_command(command)


def main() -> None:
    sys.exit(cli())
