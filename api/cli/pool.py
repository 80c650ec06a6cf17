"""`argusic pool candidates`: the project pool's candidates (methodology sections 3 and 6)."""

from __future__ import annotations

from datetime import date

import click

from api.cli.operators import act
from api.cli.output import Session, emit, json_option, pass_session
from api.services.pool import CandidatesReport, fetch_candidates
from api.wiring import GITHUB_FAILURES
from domain.events.operators import ExcludeCandidate


def _human(report: CandidatesReport) -> str:
    return "\n".join(
        f"{'eligible' if row.eligible else 'not     '} {row.project:40} {row.stars:>7} "
        f"{row.license or '-':14} {row.commit[:12]}"
        for row in report.candidates
    )


@click.group("pool")
def pool() -> None:
    """The project pool (sections 3 and 6): candidates from GitHub, judged and recorded."""


@pool.command("candidates")
@click.option("--since", required=True, type=click.DateTime(formats=["%Y-%m-%d"]))
@json_option
@pass_session
def candidates_command(session: Session, since: object, as_json: bool) -> None:
    """Read the repositories created after --since from GitHub's API (ARGUSIC_GITHUB_API), by
    stars; archive every answer by its SHA-256; record each candidate with each criterion's
    verdict. A round the API cuts short records only its failure (exit 1) and is tried again."""
    argusic = session.argusic
    day = since.date() if hasattr(since, "date") else date.fromisoformat(str(since))
    state = argusic.methodology.reader.latest()
    report = fetch_candidates(
        argusic.ledger,
        argusic.github,
        since=day,
        now=argusic.clock(),
        failures=GITHUB_FAILURES,
        known=state.candidates,
        excluded=state.excluded,
    )
    emit(report, _human)


@pool.command("exclude")
@click.argument("project")
@click.option("--reason", required=True, help="Why it is kept out (recorded and shown).")
@click.option("--as", "signer", required=True, help="The operator who excludes it.")
@json_option
@pass_session
def exclude_command(
    session: Session, project: str, reason: str, signer: str, as_json: bool
) -> None:
    """Sign exclude_candidate: keep the recorded candidate PROJECT (owner/name) out of every
    selection after this, naming why (section 6)."""
    act(session, signer, ExcludeCandidate(project=project, reason=reason))
