"""How commands print: one JSON document on stdout with --json, plain text otherwise."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn, Protocol

import click
import msgspec

from api.services.queries import LedgerQueries, MethodologyQueries, SiiqQueries
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


def _set_published(ctx: click.Context, _: click.Parameter, value: bool) -> bool:
    ctx.meta["published"] = value
    return value


published_option = click.option(
    "--published",
    is_flag=True,
    callback=_set_published,
    expose_value=False,
    is_eager=True,
    help="Answer as the public sees it: as of the latest approved publication.",
)


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

    @property
    def methodology(self) -> MethodologyQueries:
        """The operator's view at the head, or the public's with --published."""
        public = click.get_current_context().meta.get("published")
        return self.argusic.public if public else self.argusic.methodology

    @property
    def siiq(self) -> SiiqQueries:
        public = click.get_current_context().meta.get("published")
        return self.argusic.public_siiq if public else self.argusic.siiq

    @property
    def ledger_queries(self) -> LedgerQueries:
        """The whole ledger, or with --published the tree approved for the public."""
        public = click.get_current_context().meta.get("published")
        return self.argusic.public_ledger if public else self.argusic.ledger_queries


pass_session = click.make_pass_decorator(Session)


class StandInServer(Protocol):
    """A local stand-in server (socketserver's interface) with the base URL it listens on."""

    @property
    def url(self) -> str: ...

    def serve_forever(self, poll_interval: float = ...) -> None: ...

    def server_close(self) -> None: ...


def serve_stand_in(server: StandInServer) -> None:
    """Print the stand-in's base URL for the caller to read, then serve it until interrupted."""
    sys.stdout.write(f"{server.url}\n")
    sys.stdout.flush()
    try:
        server.serve_forever(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
