"""How commands print: one JSON document on stdout with --json, plain text otherwise."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click
import msgspec

from adapters.artifacts import FileArtifactStore
from api.service import Reads, methodology_reads, siiq_reads
from api.wiring import Settings, open_ledger
from ledger.ledger import Ledger
from projections.methodology import Methodology
from projections.siiq import Siiq

_encoder = msgspec.json.Encoder()


def _set_json(ctx: click.Context, _: click.Parameter, value: bool) -> bool:
    ctx.meta["json"] = value
    return value


json_option = click.option(
    "--json",
    "as_json",
    is_flag=True,
    callback=_set_json,
    is_eager=True,
    help="Print exactly one JSON document on stdout.",
)


def emit(result: Any, human: Callable[[Any], str]) -> None:
    """Print a command's result: its JSON document with --json, else the human rendering."""
    if click.get_current_context().meta.get("json"):
        sys.stdout.buffer.write(_encoder.encode(result) + b"\n")
    else:
        click.echo(human(result))


def emit_error(ctx: click.Context, message: str, code: int, **details: Any) -> NoReturn:
    """Report a failure (as JSON on stdout with --json, else on stderr) and exit with `code`."""
    if ctx.meta.get("json"):
        document = {"ok": False, "error": message, "exit_code": code, **details}
        sys.stdout.buffer.write(_encoder.encode(document) + b"\n")
    else:
        click.echo(f"error: {message}", err=True)
        for rejection in details.get("rejections", []):
            click.echo(f"  {rejection.file}:{rejection.line}: {rejection.reason}", err=True)
    ctx.exit(code)


class Session:
    """What every command gets: the settings, and the ledger, opened on first use and closed
    when the command ends."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._ledger: Ledger | None = None

    @property
    def reads(self) -> Reads[Methodology]:
        return methodology_reads(self.ledger)

    @property
    def siiq(self) -> Reads[Siiq]:
        return siiq_reads(self.ledger)

    @property
    def artifacts(self) -> FileArtifactStore:
        return FileArtifactStore(self.settings.home / "artifacts")

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = open_ledger(self.settings)
            click.get_current_context().call_on_close(self._ledger.close)
        return self._ledger


pass_session = click.make_pass_decorator(Session)
