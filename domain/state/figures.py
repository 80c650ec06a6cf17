"""The figures an audit bundle vouches for (ARCHITECTURE.md, "Operators": `audit bundle`),
each computed from the public state by the same rules the API's documents use, so a bundle's
events alone recompute it."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.errors import InvalidInput, NotFound
from domain.events import CalibrationAccepted, Pinned, SiiqInputsRecorded, streams
from domain.pool import commitment_holds
from domain.siiq.index import ModelEntry, build_index
from domain.state.methodology import Methodology

Kind = Literal["run", "leaderboard", "siiq", "cycle"]

AUTHORITY_STREAMS = (streams.OPERATORS, streams.operator_key(""), streams.PUBLICATION)
"""Who may act, what each key signed, what was approved: every figure's authority."""
METHODOLOGY_STREAMS = (
    *AUTHORITY_STREAMS,
    streams.agent(""),
    streams.cycle(""),
    streams.dispute(""),
    streams.edition(""),
    streams.EVIDENCE,
    streams.rerun(""),
    streams.review(""),
    streams.run(""),
)
FIGURE_STREAMS: dict[Kind, tuple[str, ...]] = {
    "run": METHODOLOGY_STREAMS,
    "leaderboard": METHODOLOGY_STREAMS,
    "siiq": (*AUTHORITY_STREAMS, streams.SIIQ_CALIBRATION, streams.siiq_inputs({})),
    "cycle": (*AUTHORITY_STREAMS, streams.cycle("")),
}
"""The streams each kind of figure is folded from, all of them (`ledger.heads_map`'s selections:
a name ending in ":" selects every stream under it): an audit bundle holds every event of these
up to the approval that published the figure, and proves it left none out."""


class RunFigure(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    valid: bool
    invalid_reason: str | None
    outcome: str | None
    score: float | None


class StandingFigure(msgspec.Struct, frozen=True, kw_only=True):
    agent: str
    score: float | None
    pass_rate: float
    attempts: int
    projects_counted: int


class LeaderboardFigure(msgspec.Struct, frozen=True, kw_only=True):
    cycle: str
    rows: list[StandingFigure]


class PoolEntry(msgspec.Struct, frozen=True, kw_only=True):
    project: str
    commit: str | None


class CycleFigure(msgspec.Struct, frozen=True, kw_only=True):
    """A cycle's pools as the public sees them (section 6): the public pool at its commits, the
    secret pool's commitment, and once the cycle is closed the secret list with the commitment
    checked against it."""

    id: str
    opens: str
    public_pool: list[PoolEntry]
    secret_commitment: str | None
    secret_pool: list[PoolEntry] | None
    commitment_verified: bool | None


def parse_figure(figure: str) -> tuple[Kind, str]:
    """`run:ID`, `leaderboard:CYCLE`, `siiq:SLUG` or `cycle:CYCLE`."""
    kind, _, name = figure.partition(":")
    if kind not in ("run", "leaderboard", "siiq", "cycle") or not name:
        raise InvalidInput(
            f"figure {figure!r}: give run:ID, leaderboard:CYCLE, siiq:SLUG or cycle:CYCLE"
        )
    return kind, name  # type: ignore[return-value]


def run_figure(state: Methodology, run_id: str) -> RunFigure:
    run = state.runs.get(run_id)
    if run is None:
        raise NotFound(f"no published run {run_id!r}")
    judged = state.judge(run)
    return RunFigure(
        run_id=run_id,
        valid=judged.invalid_reason is None,
        invalid_reason=judged.invalid_reason,
        outcome=judged.outcome,
        score=None if judged.lines is None else float(judged.lines.total),
    )


def leaderboard_figure(state: Methodology, cycle: str) -> LeaderboardFigure:
    return LeaderboardFigure(
        cycle=cycle,
        rows=[
            StandingFigure(
                agent=s.agent,
                score=None if s.score is None else float(s.score),
                pass_rate=float(s.pass_rate),
                attempts=s.attempts,
                projects_counted=s.projects_counted,
            )
            for s in state.standings(cycle)
        ],
    )


def siiq_figure(
    inputs: SiiqInputsRecorded | None, in_force: CalibrationAccepted | None, slug: str
) -> ModelEntry:
    """SI-IQ sections 3 to 6: a model's entry, scored from the inputs with the calibration in
    force."""
    if inputs is None or in_force is None:
        raise NotFound("no SI-IQ calibration is in force")
    for entry in build_index(inputs.results, in_force.calibration).models:
        if entry.slug == slug:
            return entry
    raise NotFound(f"no SI-IQ for model {slug!r}")


def cycle_figure(state: Methodology, cycle_id: str) -> CycleFigure:
    """Section 6, from the public state: an open cycle's secret list is not in it."""
    cycle = state.cycles.get(cycle_id)
    if cycle is None:
        raise NotFound(f"no cycle {cycle_id}")
    entries = {
        pool: sorted(
            (PoolEntry(project=p.id, commit=p.commit) for p in cycle.projects if p.pool == pool),
            key=lambda p: p.project,
        )
        for pool in ("public", "secret")
    }
    closed = cycle_id in state.closed
    chosen = state.selections.get(cycle_id)
    verified = None
    if closed and chosen is not None:
        revealed = [Pinned(project=p.project, commit=p.commit or "") for p in entries["secret"]]
        verified = commitment_holds(revealed, chosen.salt, chosen.commitment)
    return CycleFigure(
        id=cycle_id,
        opens=cycle.opens.isoformat(),
        public_pool=entries["public"],
        secret_commitment=None if chosen is None else chosen.commitment,
        secret_pool=entries["secret"] if closed else None,
        commitment_verified=verified,
    )


def public_figure(state: Methodology, kind: Kind, name: str) -> object:
    """A methodology figure (not SI-IQ's) from the public state."""
    if kind == "run":
        return run_figure(state, name)
    if kind == "cycle":
        return cycle_figure(state, name)
    return leaderboard_figure(state, name)
