"""`argusic render`: a render of a run's served recording (methodology section 17)."""

from __future__ import annotations

from pathlib import Path

import click

from api.cli.output import Session, emit, json_option, pass_session
from api.services.render import RenderAsked, RenderReport, render_run
from domain.errors import UsageError
from domain.presentation import Trim


def _trim(text: str) -> Trim:
    start, colon, end = text.partition(":")
    try:
        if not colon:
            raise ValueError(text)
        return Trim(start=float(start), end=float(end))
    except ValueError:
        raise UsageError(f"--trim {text!r}: write FROM:TO, in seconds of the recording") from None


def _human(report: RenderReport) -> str:
    done = "recorded" if report.recorded else "already recorded"
    edits = ", ".join(report.edits) or "no edits"
    return f"{report.render} ({done}): sha256 {report.sha256}, {edits}; from {report.source_sha256}"


@click.command("render")
@click.argument("run_id")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "kind", type=click.Choice(["gif", "mp4"]), help="Default: --out's.")
@click.option("--speed", type=float, default=1.0, show_default=True, help="At least 1.")
@click.option("--idle-cap", type=float, help="Shorten every pause to at most this many seconds.")
@click.option("--trim", "trims", multiple=True, help="FROM:TO, seconds of the recording kept.")
@click.option("--captions", is_flag=True, help="Captions from the run's timeline.")
@json_option
@pass_session
def render_command(
    session: Session,
    *,
    run_id: str,
    out: Path,
    kind: str | None,
    speed: float,
    idle_cap: float | None,
    trims: tuple[str, ...],
    captions: bool,
    as_json: bool,
) -> None:
    """Render a run's served recording as a GIF or MP4 with the edits section 17 allows
    (speeding up, one trim window, captions from the timeline), recorded as a `RenderMade`
    event; a refused edit exits 1 naming the rule."""
    kind = kind or out.suffix.lstrip(".").lower()
    if kind not in ("gif", "mp4"):
        raise UsageError(f"--out {out}: name a .gif or .mp4 file, or give --format")
    argusic = session.argusic
    asked = RenderAsked(
        run_id=run_id,
        format=kind,
        speed=speed,
        idle_cap=idle_cap,
        trims=[_trim(t) for t in trims],
        captions=captions,
    )
    report, data = render_run(
        argusic.ledger, argusic.methodology, argusic.store, argusic.renderer, asked
    )
    out.write_bytes(data)
    emit(report, _human)


commands = (render_command,)
