"""`argusic leaderboard | project | run | editions | sources | trace`."""

from __future__ import annotations

import click

from api.cli.output import Session, emit, json_option, pass_session, published_option
from api.cli.progress import progress_bar
from api.services.maintenance import rebuild
from api.services.trace import TraceView, trace
from projections.views.editions import EditionsView
from projections.views.evidence import EvidenceView
from projections.views.leaderboard import LeaderboardView
from projections.views.project import ProjectView
from projections.views.run import RunView
from projections.views.sources import SourcesView

as_of_option = click.option("--as-of", type=int, help="Answer as of this ledger position.")


def _leaderboard_human(view: LeaderboardView) -> str:
    lines = [f"cycle {view.cycle}, as of position {view.as_of}"]
    for row in view.rows:
        score = "-" if row.score is None else f"{row.score:.1f}"
        excluded = ", ".join(f"{e.project} ({e.reason})" for e in row.excluded)
        lines.append(
            f"  {row.agent:24} score {score:>6}  pass rate {row.pass_rate:.0%}"
            f"  attempts {row.attempts}" + (f"  excluded: {excluded}" if excluded else "")
        )
    return "\n".join(lines)


@click.command("leaderboard")
@click.option("--cycle", required=True, help="The test cycle, e.g. 2026-09.")
@as_of_option
@published_option
@json_option
@pass_session
def leaderboard_command(session: Session, cycle: str, as_of: int | None, as_json: bool) -> None:
    """The agents of a cycle, by the middle of their per-project middles (section 9)."""
    emit(session.methodology.leaderboard(cycle, as_of), _leaderboard_human)


def _project_human(view: ProjectView) -> str:
    lines = [f"{view.project}: {view.verdict}" + (" (under review)" if view.under_review else "")]
    lines += [
        f"  {a.run_id} {a.agent} {a.attempt} v{a.edition}: "
        + (f"{a.outcome} {a.score:g}" if a.valid else f"invalid ({a.invalid_reason})")
        for a in view.attempts
    ]
    return "\n".join(lines)


@click.command("project")
@click.argument("project_id")
@as_of_option
@published_option
@json_option
@pass_session
def project_command(session: Session, project_id: str, as_of: int | None, as_json: bool) -> None:
    """A project's verdict, attempts and sets (sections 10, 11 and 15)."""
    emit(session.methodology.project(project_id, as_of), _project_human)


@click.command("run")
@click.argument("run_id")
@as_of_option
@published_option
@json_option
@pass_session
def run_command(session: Session, run_id: str, as_of: int | None, as_json: bool) -> None:
    """One run: its outcome, score lines, time budget and evidence (sections 7, 8 and 17)."""
    emit(session.methodology.run(run_id, as_of), _run_human)


def _run_human(view: RunView) -> str:
    result = f"{view.outcome} {view.score}" if view.valid else f"invalid ({view.invalid_reason})"
    report = view.run.report
    lines = [f"{view.run_id}: {result}; time budget {view.time_budget_minutes} min"]
    if report is not None:
        lines.append(f"  verified how: {report.verified_how or 'not verified'}")
    if view.verification_note:
        lines.append(f"  why unverified: {view.verification_note}")
    if view.final_state_shown:
        lines.append(f"  final state: {view.final_state_shown}")
    return "\n".join(lines + _evidence_lines(view.evidence))


def _evidence_lines(copies: dict[str, EvidenceView]) -> list[str]:
    """Each file's raw and served fingerprints and the transforms, as run pages show them."""
    lines = []
    for kind, copy in sorted(copies.items()):
        served = f"withheld: {copy.withheld}" if copy.withheld else f"served {copy.served_sha256}"
        masked = "; private key material masked" if copy.key_material_masked else ""
        lines += [
            f"  {kind}: raw {copy.raw_sha256}",
            f"  {'':{len(kind)}}  {served}",
            f"  {'':{len(kind)}}  {', '.join(copy.transforms) or 'no transform'}{masked}",
        ]
    return lines


def _editions_human(view: EditionsView) -> str:
    return (
        "\n".join(
            f"v{e.version}  drafted {e.drafted}"
            + (f"  decided {e.decided}" if e.decided else "")
            + f"  effective since {e.effective_since or '-'}"
            + ("  (differs from drafted)" if e.differs_from_drafted else "")
            for e in view.editions
        )
        or "no editions"
    )


@click.command("editions")
@as_of_option
@published_option
@json_option
@pass_session
def editions_command(session: Session, as_of: int | None, as_json: bool) -> None:
    """The changelog editions, drafted and effective since (section 20)."""
    emit(session.methodology.editions(as_of), _editions_human)


def _sources_human(view: SourcesView) -> str:
    return "\n".join(f"{s.source_type:18} {s.status:22} {s.projects_tested}" for s in view.sources)


@click.group("sources", invoke_without_command=True)
@as_of_option
@published_option
@json_option
@pass_session
@click.pass_context
def sources_command(ctx: click.Context, session: Session, as_of: int | None, as_json: bool) -> None:
    """What a tested project can be, and which sources are in use (section 6a); with
    `fetch`, SI-IQ's data sources."""
    if ctx.invoked_subcommand is None:
        emit(session.methodology.sources(as_of), _sources_human)


def _trace_human(view: TraceView) -> str:
    lines = [f"{view.run_id}: {view.outcome} {view.score}; checkpoint {view.checkpoint.size}"]
    lines += _evidence_lines(view.copies)
    lines += [f"  {e.position:>8} {e.type:22} {e.hash}" for e in view.events]
    return "\n".join(lines)


@click.command("trace")
@click.argument("run_id")
@published_option
@json_option
@pass_session
def trace_command(session: Session, run_id: str, as_json: bool) -> None:
    """Every event behind a run's figures, with inclusion proofs (verifiable offline)."""
    emit(trace(session.ledger_queries, session.methodology, run_id), _trace_human)


@click.command("rebuild")
@json_option
@pass_session
def rebuild_command(session: Session, as_json: bool) -> None:
    """Fold the methodology read model from position 0 again and store it (at the latest
    approved position, where a server starts); the same ledger always gives the same bytes at
    the head (their SHA-256 is printed)."""
    ledger = session.argusic.ledger
    with progress_bar("rebuilding", ledger.size()) as progress:
        report = rebuild(ledger, progress)
    emit(report, lambda r: f"{r.projection} rebuilt to position {r.position}: sha256 {r.sha256}")


commands = (
    leaderboard_command,
    project_command,
    run_command,
    editions_command,
    sources_command,
    trace_command,
    rebuild_command,
)
