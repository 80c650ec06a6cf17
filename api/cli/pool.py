"""`argusic pool candidates`: the project pool's candidates (methodology sections 3 and 6)."""

from __future__ import annotations

from datetime import datetime

import click

from api.cli.operators import act
from api.cli.output import Session, emit, json_option, pass_session
from api.services.operators import operator_signer
from api.services.pool import CandidatesReport, Selection, fetch_candidates, selection
from api.wiring import GITHUB_FAILURES
from domain.events.operators import ExcludeCandidate, SelectPool


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
def candidates_command(session: Session, since: datetime, as_json: bool) -> None:
    """Read the repositories created after --since from GitHub's API (ARGUSIC_GITHUB_API), by
    stars; archive every answer by its SHA-256; record each candidate with each criterion's
    verdict. A round the API cuts short records only its failure (exit 1) and is tried again."""
    argusic = session.argusic
    day = since.date()
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


def _selection_human(chosen: Selection) -> str:
    lines = [f"cycle {chosen.cycle}: {len(chosen.public)} public, {chosen.secret_count} secret"]
    lines += [f"  {p.project} {p.commit}" for p in chosen.public]
    return "\n".join([*lines, f"secret pool committed to: {chosen.secret_commitment}"])


@pool.command("select")
@click.option("--cycle", required=True, help="The cycle (YYYY-MM), recorded with its roster.")
@click.option("--opens", required=True, type=click.DateTime(formats=["%Y-%m-%d"]))
@click.option("--size", required=True, type=click.IntRange(1, 500))
@click.option("--as", "signer", required=True, help="The operator who selects.")
@json_option
@pass_session
def select_command(
    session: Session, *, cycle: str, opens: datetime, size: int, signer: str, as_json: bool
) -> None:
    """Sign select_pool: draw the cycle's pools from the recorded candidates (section 6): 20 %
    secret, from those created in the 30 days before --opens and not in the previous cycle's
    secret pool, the rest public; the secret list is committed to and stays off every public
    answer until the cycle is closed."""
    argusic = session.argusic
    action = SelectPool(cycle=cycle, opens=opens.date(), size=size)
    argusic.actions.act(operator_signer(argusic.settings.home, signer), action)
    emit(selection(argusic.methodology.reader.latest(), cycle), _selection_human)
