"""Reproducing a result (methodology section 18: "Argusic guarda sus versiones exactas y puede
volver a ejecutar un resultado para reproducirlo"): the runs asked for, what differs in what
they ran with, and whether the original's outcome held."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.errors import Rejected
from domain.events import RunRecorded
from domain.events.methodology import Difference, ReproducedRun, ReproductionReported
from domain.scoring import Outcome

REPRODUCTION_MARK = "~p"

WHAT_RAN: tuple[tuple[str, Callable[[RunRecorded], str | None]], ...] = (
    ("image_digest", lambda r: r.image_digest),
    ("instructions_sha256", lambda r: r.instructions_sha256),
    ("agent.model", lambda r: r.agent.model),
    ("agent.model_version", lambda r: r.agent.model_version),
    ("agent.harness", lambda r: r.agent.harness),
    ("agent.harness_version", lambda r: r.agent.harness_version),
    ("engine_version", lambda r: r.engine_version),
    ("budget_minutes", lambda r: None if r.budget_minutes is None else f"{r.budget_minutes:g}"),
    ("network", lambda r: r.network),
    ("project.commit", lambda r: r.project.commit),
)
"""Everything a run ran with that a reproduction compares (section 18)."""


def reproduction_runs(run_id: str, earlier: int, count: int) -> list[str]:
    """`<run id>~p<k>`, numbered on after the run's `earlier` reproduction runs."""
    return [f"{run_id}{REPRODUCTION_MARK}{k}" for k in range(earlier + 1, earlier + count + 1)]


def reproducible(run: RunRecorded) -> None:
    """Section 18: a run is reproduced as it ran, so it must have recorded what it ran on (its
    image by digest, its instructions, its pinned commit); a reproduction is not reproduced
    again (its original is)."""
    if run.reproduces is not None:
        raise Rejected(
            "section 18", f"run {run.run_id} reproduces {run.reproduces}: reproduce that run"
        )
    missing = [
        name
        for name, value in (
            ("image digest", run.image_digest),
            ("standard instructions' SHA-256", run.instructions_sha256),
            ("pinned commit", run.project.commit),
        )
        if not value
    ]
    if missing:
        raise Rejected(
            "section 18",
            f"run {run.run_id} recorded no {' and no '.join(missing)}: it cannot be run again as "
            "it ran",
        )


def differences(original: RunRecorded, again: Sequence[RunRecorded]) -> list[Difference]:
    """Every value a reproduction ran with that the original did not, once each, in field order."""
    found: list[Difference] = []
    for field, value in WHAT_RAN:
        for run in again:
            difference = Difference(field=field, original=value(original), now=value(run))
            if difference.original != difference.now and difference not in found:
                found.append(difference)
    return found


def reproduction_report(
    request: str,
    original: RunRecorded,
    original_outcome: Outcome | None,
    again: Sequence[tuple[RunRecorded, Outcome | None, float | None]],
) -> ReproductionReported:
    """Section 18: each run's outcome and score beside the original's; the outcome held when
    every reproduction reached the original's."""
    return ReproductionReported(
        request=request,
        run_id=original.run_id,
        runs=[ReproducedRun(run_id=r.run_id, outcome=o, score=s) for r, o, s in again],
        same_outcome=all(outcome == original_outcome for _, outcome, _ in again),
        differences=differences(original, [r for r, _, _ in again]),
    )
