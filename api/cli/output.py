"""How commands print: one JSON document on stdout with --json, plain text otherwise."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click
import msgspec

from api.wiring import Argusic, Settings

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
    """What every command gets: the settings, and the application (the ledger and what the
    use cases need), opened on first use and closed when the command ends."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._argusic: Argusic | None = None

    @property
    def argusic(self) -> Argusic:
        if self._argusic is None:
            self._argusic = Argusic.open(self.settings)
            click.get_current_context().call_on_close(self._argusic.close)
        return self._argusic


pass_session = click.make_pass_decorator(Session)
