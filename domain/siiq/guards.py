"""The checks between a new snapshot and a published index (SI-IQ section 8), one pure function
a rule. Scores of results are proportions (0.10 is "10 points" of a benchmark's score); index
scores are SI-IQ points. The use case (`api/services/siiq_update.py`) calls them and records
what they decide as events.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

import numpy as np

from domain.siiq.data import Observations
from domain.siiq.records import Benchmark, Result
from domain.siiq.scores import LAMBDA, Parameters, sums
from domain.siiq.transform import transform

BIG_CHANGE = 0.10
"""Section 8: a score that changes by more than 10 points is held."""
FAR_SD = 4.0
"""Section 8: a result more than 4 standard deviations from its model's prediction is held."""
CONFIRM_WITHIN = 0.02
CONFIRM_AGE = timedelta(hours=6)
LEADER_MARGIN = 5.0
"""Section 8: a model not ranked before that would lead by more than 5 SI-IQ points."""
LEADER_STEADY = 3.0
ROW_LOSS = 0.30
SHRINK_WINDOW = timedelta(hours=24)
KEEP_RATIO_SAME = 0.005
"""Decision: the parser keeps "the same share" of a file's rows within half a percent."""
DELETION_DELAY = timedelta(hours=6)
REVISION_RESULTS, REVISION_SHARE, REVISION_MOVE = 5, 0.25, 0.005
REVISION_RETRY = timedelta(days=1)
REVISION_NOTICE = timedelta(days=3)
HOLD_NOTICE = timedelta(days=7)
RESUME_RUNS = 6
"""Section 8: a halted publication resumes by itself after six hourly runs at most."""
MANY_MOVED, MOVED_POINTS = 0.10, 1.0
"""Decision: "many scores move" is more than 10% of the models scored before moving by more than
one SI-IQ point (a shown value changing) without a recalibration."""


def big_change(published: float | None, value: float) -> bool:
    """SI-IQ section 8: a score changing by more than 10 points (a new result never does)."""
    return published is not None and abs(value - published) > BIG_CHANGE


def prediction_z(
    result: Result, others: Sequence[Result], benchmarks: Sequence[Benchmark], params: Parameters
) -> float | None:
    """SI-IQ section 8: how many standard deviations a result lies from what the model's other
    results predict: theta_0 from the others by section 5 with the frozen parameters, the
    prediction alpha theta_0 + beta, the deviation over sqrt(sigma^2 + v). None when the
    benchmark is not calibrated or the model has no other calibrated result."""
    names = [b.benchmark for b in benchmarks]
    if result.benchmark not in names:
        return None
    rest = [r for r in others if r.benchmark in names and r.benchmark != result.benchmark]
    if not rest:
        return None
    obs = Observations.build(rest, benchmarks)
    aligned = Parameters(*(np.asarray(p) for p in params))
    s = sums(obs, aligned)
    theta0 = float(s.way[0] / (LAMBDA + s.wa2[0]))
    i = names.index(result.benchmark)
    bench = benchmarks[i]
    t = transform([result.score], bench.chance, bench.ceiling, bench.n)
    predicted = float(params.alpha[i]) * theta0 + float(params.beta[i])
    spread = math.sqrt(float(params.sigma2[i]) + float(t.v[0]))
    return (float(t.y[0]) - predicted) / spread


def far_from_prediction(z: float | None, z_before: float | None, changed: bool) -> bool:
    """SI-IQ section 8: a new or changed result more than 4 SD from the prediction; a changed
    one only if its previous value was not."""
    if z is None or abs(z) <= FAR_SD:
        return False
    return not (changed and z_before is not None and abs(z_before) > FAR_SD)


def hold_reason(
    published: float | None, value: float, z: float | None, z_before: float | None
) -> str | None:
    """SI-IQ section 8: why a cross-checked new or changed value is held, or None to publish."""
    if big_change(published, value):
        return f"changed by {abs(value - (published or 0.0)) * 100:.1f} points (more than 10)"
    if far_from_prediction(z, z_before, published is not None):
        return f"{abs(z or 0.0):.1f} SD from the model's other results (more than 4)"
    return None


class Seen(NamedTuple):
    """A distinct snapshot of a source and the value it showed (None: not listed)."""

    snapshot: str
    first_seen: datetime
    value: float | None


def confirmed_by_snapshot(history: Sequence[Seen], held_at: str, now: datetime) -> bool:
    """SI-IQ section 8: a held value is confirmed by a later snapshot: the current snapshot is
    not the one it was held in, and the most recent snapshot distinct from it observed at
    least six hours ago already showed it within 0.02 of its current value; time alone never
    releases."""
    if not history or history[-1].snapshot == held_at or history[-1].value is None:
        return False
    current = history[-1].snapshot
    old = [s for s in history if s.snapshot != current and s.first_seen <= now - CONFIRM_AGE]
    if not old or old[-1].value is None:
        return False
    return abs(old[-1].value - history[-1].value) <= CONFIRM_WITHIN


def confirmed_by_other_run(value: float, other_run: float | None) -> bool:
    """SI-IQ section 8: the other GPQA Diamond run (the same 198 questions) confirms a value
    within 0.02."""
    return other_run is not None and abs(value - other_run) <= CONFIRM_WITHIN


def overtakes_leader(ranked_before: bool, si_iq: float, leader: float | None) -> bool:
    """SI-IQ section 8: a model not ranked before that would now be more than 5 points above
    the current leader keeps its previous published state."""
    return not ranked_before and leader is not None and si_iq > leader + LEADER_MARGIN


def leader_released(
    all_confirmed: bool, first_seen: datetime, now: datetime, si_iq: float, si_iq_then: float
) -> bool:
    """SI-IQ section 8: such a model's values are published once every one is confirmed, at
    least six hours after it first appeared, and its score stayed within 3 points."""
    return (
        all_confirmed
        and now - first_seen >= CONFIRM_AGE
        and abs(si_iq - si_iq_then) <= LEADER_STEADY
    )


class TableShape(NamedTuple):
    name: str
    rows: int
    columns: tuple[str, ...]


def format_change(
    before: Sequence[TableShape],
    after: Sequence[TableShape],
    score_columns: Mapping[str, str] | None = None,
) -> str | None:
    """SI-IQ section 8: a source changed format when a table it had is gone or lost a column;
    a benchmark table's score column (`score_columns`, by table) is its benchmark's definition,
    not the source's format (`score_column_gone`)."""
    now = {t.name: t for t in after}
    ignored = score_columns or {}
    for table in before:
        if table.name not in now:
            return f"{table.name} is gone"
        lost = [
            c
            for c in table.columns
            if c not in now[table.name].columns and c != ignored.get(table.name)
        ]
        if lost:
            return f"{table.name} lost column(s) {', '.join(lost)}"
    return None


def score_column_gone(before: TableShape, after: TableShape, column: str) -> str | None:
    """SI-IQ section 8: a benchmark's score column renamed or gone changes that benchmark's
    definition: it alone freezes, the source's other benchmarks go on updating."""
    if column in before.columns and column not in after.columns:
        return f"score column {column} of {after.name.rsplit('#', 1)[-1]} is gone"
    return None


def scale_changed(scores: Sequence[float], scale: float) -> str | None:
    """SI-IQ section 8: a benchmark's scale changed when its scores, divided by the scale its
    configuration gives, are no longer proportions (one above 1)."""
    top = max(scores, default=0.0)
    if top > 1.0:
        return f"scale changed: a score of {top * scale:g} is above {scale:g}"
    return None


def lost_rows(before: int, after: int) -> bool:
    """SI-IQ section 8: a sudden loss of more than 30% of the rows."""
    return before > 0 and after < (1 - ROW_LOSS) * before


def row_loss(
    before: Sequence[TableShape],
    after: Sequence[TableShape],
    benchmark_rows: Mapping[str, tuple[int, int]],
) -> str | None:
    """SI-IQ section 8: the source, or one benchmark, lost more than 30% of its rows at once
    (`benchmark_rows`: a benchmark's rows before and after)."""
    total_before, total_after = sum(t.rows for t in before), sum(t.rows for t in after)
    if lost_rows(total_before, total_after):
        return f"rows fell from {total_before} to {total_after} (more than 30%)"
    for name, (old, new) in sorted(benchmark_rows.items()):
        if lost_rows(old, new):
            return f"{name}: rows fell from {old} to {new} (more than 30%)"
    return None


def shrink_accepted(
    keep_before: float,
    keep_ratios: Sequence[float],
    *,
    since: datetime,
    now: datetime,
    rows_since: Sequence[int],
) -> bool:
    """SI-IQ section 8: a shrunk file becomes the new normal only if the parser still keeps the
    same share of its rows (they were removed at the source, not lost by us) in every file
    read since, and every file of the 24 hours since was as small as the first smaller one
    (`rows_since`, that one first); a fall of that share never passes."""
    return (
        now - since >= SHRINK_WINDOW
        and all(abs(r - keep_before) <= KEEP_RATIO_SAME for r in keep_ratios)
        and all(n <= rows_since[0] for n in rows_since)
    )


def definition_changed(before: Benchmark, after: Benchmark) -> str | None:
    """SI-IQ section 8: a benchmark's definition (score column and scale, chance, ceiling,
    number of questions, how n is known) changed; an effective n moving with the data is not
    a change."""
    for field in ("family", "area", "chance", "ceiling", "n_kind"):
        if getattr(before, field) != getattr(after, field):
            return f"{field} changed from {getattr(before, field)} to {getattr(after, field)}"
    if before.n_kind == "exact" and before.n != after.n:
        return f"n changed from {before.n:g} to {after.n:g}"
    return None


def removal_due(deletes_at_source: bool, missing_since: datetime, now: datetime) -> bool:
    """SI-IQ section 8: a result Epoch AI deleted is removed six hours later; one that left
    OpenRouter's 90-day window or an archived source keeps its last value."""
    return deletes_at_source and now - missing_since >= DELETION_DELAY


def moved(before: float, after: float) -> bool:
    """SI-IQ section 8: a result re-scored by more than half a point."""
    return abs(after - before) > REVISION_MOVE


def is_revision(existing: int, moved_results: int) -> bool:
    """SI-IQ section 8: at least 5 existing results of a benchmark, and at least a quarter of
    them, moved by more than half a point in one snapshot: the benchmark was revised."""
    return moved_results >= REVISION_RESULTS and moved_results * 4 >= existing


def revision_ready(changed: Collection[str], confirmed: Collection[str]) -> bool:
    """SI-IQ section 8: a revision moves in one step once every changed value is cross-checked
    and confirmed (the ones the check rejected are left out before this)."""
    return set(changed) <= set(confirmed)


def retry_due(last_attempt: datetime | None, now: datetime) -> bool:
    """SI-IQ section 8: a failed revision transition is tried again a day later."""
    return last_attempt is None or now - last_attempt >= REVISION_RETRY


def notice_due(since: datetime, now: datetime, after: timedelta, told: bool) -> bool:
    """SI-IQ section 8: the operator is told once, after three days for a revision not ready and
    after seven for a held value no snapshot confirmed."""
    return not told and now - since >= after


def monthly_recalibration_due(last: datetime | None, now: datetime) -> bool:
    """SI-IQ section 3: a recalibration at 06:00 UTC on the first of each month (decision)."""
    if last is None:
        return False
    due = now.replace(day=1, hour=6, minute=0, second=0, microsecond=0)
    if due > now:
        previous = (due - timedelta(days=1)).replace(day=1)
        due = previous
    return last < due <= now


class Moves(NamedTuple):
    vanished: list[str]
    moved: list[str]
    unranked: tuple[str, ...] = ()


def rank_lost(
    before: Mapping[str, tuple[bool, float]], after: Mapping[str, tuple[bool, float]]
) -> list[str]:
    """SI-IQ section 8: the ranked models that would stay scored but lose their rank (a ranked
    model disappearing from the ranking, as a vanished one does)."""
    return sorted(
        s for s, (ranked, _) in before.items() if ranked and s in after and not after[s][0]
    )


def publication_moves(
    before: Mapping[str, tuple[bool, float]], after: Mapping[str, tuple[bool, float]]
) -> Moves:
    """SI-IQ section 8: the ranked models that would vanish or lose their rank, and the models
    whose score would move (by more than a point) from the last published index (slug ->
    (ranked, SI-IQ))."""
    vanished = sorted(s for s, (ranked, _) in before.items() if ranked and s not in after)
    moved_ = sorted(
        s for s, (_, v) in before.items() if s in after and abs(after[s][1] - v) > MOVED_POINTS
    )
    return Moves(vanished, moved_, tuple(rank_lost(before, after)))


def publication_problem(moves: Moves, scored_before: int, recalibrated: bool) -> str | None:
    """SI-IQ section 8: publication halts when ranked models vanish (from the index or from
    the ranking), or when many scores move without a recalibration."""
    if moves.vanished:
        return f"ranked models would vanish: {', '.join(moves.vanished)}"
    if moves.unranked:
        return f"ranked models would lose their rank: {', '.join(moves.unranked)}"
    if not recalibrated and len(moves.moved) > MANY_MOVED * scored_before:
        return f"{len(moves.moved)} of {scored_before} scores would move without a recalibration"
    return None


def resume_allowed(affected: Collection[str], inputs_changed: Collection[str], runs: int) -> bool:
    """SI-IQ section 8: a halted publication resumes by itself only if every affected model's
    inputs changed (accepted, checked source changes) and the situation held for six hourly
    runs; a model whose inputs did not change is never published automatically."""
    return set(affected) <= set(inputs_changed) and runs >= RESUME_RUNS
