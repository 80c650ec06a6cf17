"""The published index document (/data/index.json) and its recomputation (SI-IQ sections 3 to
8): everything needed to recompute every SI-IQ with the section 5 formula."""

from __future__ import annotations

import math
from collections.abc import Sequence, Set

import msgspec
import numpy as np

from domain.errors import NotFound
from domain.siiq import METHOD_VERSION
from domain.siiq.attributions import Attribution
from domain.siiq.calibration import Calibration, CalibrationCheckFailed, calibrate
from domain.siiq.data import Observations
from domain.siiq.kappa import kappa
from domain.siiq.records import (
    AREAS,
    Benchmark,
    BenchmarkParameters,
    CalibrationSummary,
    Result,
)
from domain.siiq.reference_group import every_missing_member
from domain.siiq.scores import (
    Eligibility,
    Parameters,
    Score,
    area_score,
    closed_form,
    is_ranked,
    position_ranges,
    ranking,
    shown,
    sums,
    weights,
)
from domain.siiq.versions import Conversion

NO_RESULT_IN_FIT = "no result in the fitted group"
NOT_CALIBRATED = "not calibrated: the calibration was rejected"
"""A rejected calibration's benchmarks that step 1 did not leave out themselves: it fitted
nothing, so no benchmark was in or out of a fitted group."""


def run_calibration(
    obs: Observations, benchmarks: Sequence[Benchmark], invalid: Set[str], reference: Sequence[str]
) -> CalibrationSummary:
    """Steps 1 to 6 of section 3, summarised; a rejection keeps its reason (and A22: with kappa
    undetermined, the main calibration's parameters are still reported)."""
    group = set(reference)
    try:
        main = calibrate(obs, group)
    except CalibrationCheckFailed as rejected:
        left_out = dict.fromkeys(invalid, "invalid configuration") | rejected.dropped
        return _summary(
            False,
            every_missing_member(obs, group, rejected) or rejected.reason,
            main=None,
            benchmarks=benchmarks,
            left_out=left_out,
            reference=reference,
            found=(None, 0, 0),
        )
    found = kappa(obs, main, group)
    reason = (
        None
        if found[0] is not None
        else (f"kappa is undetermined ({found[1]} folds calibrated, {found[2]} pairs)")
    )
    left_out = dict.fromkeys(invalid, "invalid configuration") | main.dropped
    return _summary(
        found[0] is not None,
        reason,
        main=main,
        benchmarks=benchmarks,
        left_out=left_out,
        reference=reference,
        found=found,
    )


def _summary(
    accepted: bool,
    reason: str | None,
    *,
    main: Calibration | None,
    benchmarks: Sequence[Benchmark],
    left_out: dict[str, str],
    reference: Sequence[str],
    found: tuple[float | None, int, int],
) -> CalibrationSummary:
    kept: dict[str, tuple[float, float, float, int]] = {}
    if main is not None:
        fit = main.fit
        kept = {
            b.benchmark: (float(a), float(be), float(s), int(models))
            for b, a, be, s, models in zip(
                fit.obs.benchmarks,
                fit.params.alpha,
                fit.params.beta,
                fit.params.sigma2,
                fit.obs.results_per_benchmark(),
                strict=True,
            )
        }
    not_kept = NO_RESULT_IN_FIT if main is not None else NOT_CALIBRATED
    rows = []
    for b in sorted(benchmarks, key=lambda x: x.benchmark):
        # An invalid configuration may hold non-numbers, which JSON cannot carry: shown as null.
        fields = {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in msgspec.structs.asdict(b).items()
        }
        if b.benchmark in kept and main is not None:
            alpha, beta, sigma2, models = kept[b.benchmark]
            extra = {
                "kept": True,
                "alpha": alpha,
                "beta": beta,
                "sigma2": sigma2,
                "models_in_fit": models,
            }
            rows.append(msgspec.convert(fields | extra, BenchmarkParameters))
        else:
            why = left_out.get(b.benchmark, not_kept)
            rows.append(
                msgspec.convert(fields | {"kept": False, "reason": why}, BenchmarkParameters)
            )
    return CalibrationSummary(
        accepted=accepted,
        reason=reason,
        version=METHOD_VERSION,
        shift=None if main is None else main.shift,
        scale=None if main is None else main.scale,
        kappa=found[0],
        folds=found[1],
        pairs=found[2],
        reference=list(reference),
        fitted_models=[] if main is None else list(main.fit.obs.models),
        benchmarks=rows,
    )


class AreaEntry(msgspec.Struct, frozen=True, kw_only=True):
    si_iq: int
    low: int
    high: int
    si_iq_full: float
    low_full: float
    high_full: float


class ModelEntry(msgspec.Struct, frozen=True, kw_only=True):
    slug: str
    theta: float
    se: float
    si_iq: int
    si_iq_low: int
    si_iq_high: int
    si_iq_full: float
    si_iq_low_full: float
    si_iq_high_full: float
    ranked: bool
    rank: int | None
    position_range: list[int] | None
    areas: dict[str, AreaEntry]
    results: list[Result]


class IndexDocument(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    calibration: CalibrationSummary
    models: list[ModelEntry]
    attributions: list[Attribution] = msgspec.field(default_factory=list)
    rejected: str | None = None
    """Why the latest calibration was rejected, when it was (section 3: the one in force, if
    any, is the one before it)."""
    conversion: list[Conversion] = msgspec.field(default_factory=list)
    """Section 4: the conversion table (old score -> new) of the major version in force."""


def calibrated_parameters(summary: CalibrationSummary) -> tuple[list[Benchmark], Parameters]:
    kept = [b for b in summary.benchmarks if b.kept]
    benchmarks = [
        Benchmark(**{k: getattr(b, k) for k in Benchmark.__struct_fields__}) for b in kept
    ]
    params = Parameters(
        *(
            np.array([getattr(b, f) for b in kept], dtype=np.float64)
            for f in ("alpha", "beta", "sigma2")
        )
    )
    return benchmarks, params


def build_index(results: Sequence[Result], summary: CalibrationSummary) -> IndexDocument:
    """Sections 5 to 7 with frozen parameters: every model with a result on a calibrated
    benchmark is scored (A22); ranked models ordered and given their position range."""
    if (
        not summary.accepted
        or summary.kappa is None
        or summary.shift is None
        or summary.scale is None
    ):
        return IndexDocument(version=METHOD_VERSION, calibration=summary, models=[])
    benchmarks, params = calibrated_parameters(summary)
    obs = Observations.build(results, benchmarks)
    calibrated = {b.benchmark for b in benchmarks}
    used = {(r.model, r.benchmark): r for r in results if r.benchmark in calibrated}
    score = closed_form(sums(obs, params), summary.shift, summary.scale, summary.kappa)
    areas = _areas(obs, params, score, summary)
    groups = obs.rows_by_model()
    ranked = [i for i, rows in enumerate(groups) if is_ranked(_eligibility(obs, i, rows, used))]
    order = ranking([obs.models[i] for i in ranked], [float(score.theta[i]) for i in ranked])
    rank = {ranked[j]: position for position, j in enumerate(order, 1)}
    among = {i: j for j, i in enumerate(ranked)}
    best, worst = position_ranges(score.low[ranked], score.high[ranked])
    models = []
    for i, slug in enumerate(obs.models):
        ranges = [int(best[among[i]]), int(worst[among[i]])] if i in rank else None
        models.append(
            ModelEntry(
                slug=slug,
                theta=float(score.theta[i]),
                se=float(score.se[i]),
                si_iq=shown(score.si_iq[i]),
                si_iq_low=shown(score.low[i]),
                si_iq_high=shown(score.high[i]),
                si_iq_full=float(score.si_iq[i]),
                si_iq_low_full=float(score.low[i]),
                si_iq_high_full=float(score.high[i]),
                ranked=i in rank,
                rank=rank.get(i),
                position_range=ranges,
                areas=areas[i],
                results=[
                    used[slug, b.benchmark] for b in benchmarks if (slug, b.benchmark) in used
                ],
            )
        )
    models.sort(key=lambda e: (e.rank is None, e.rank or 0, -e.theta, e.slug))
    return IndexDocument(version=METHOD_VERSION, calibration=summary, models=models)


def _eligibility(
    obs: Observations, i: int, rows: np.ndarray, used: dict[tuple[str, str], Result]
) -> Eligibility:
    """A25: over the results used for the score; a blank evaluator is the benchmark's."""
    benches = [obs.benchmarks[obs.b[r]] for r in rows]
    results = [used[obs.models[i], b.benchmark] for b in benches]
    evaluators = {r.evaluator or b.evaluator for r, b in zip(results, benches, strict=True)}
    return Eligibility(
        families=len({b.family for b in benches}),
        areas=len({b.area for b in benches}),
        evaluators=len(evaluators),
        released=[r.released for r in results],
    )


def _areas(
    obs: Observations, params: Parameters, score: Score, summary: CalibrationSummary
) -> list[dict[str, AreaEntry]]:
    """Section 6 (A24): an area score where the model has results from 2 families there."""
    assert summary.shift is not None
    assert summary.scale is not None
    assert summary.kappa is not None
    area = np.array([b.area for b in obs.benchmarks])[obs.b]
    family = obs.family_index()[obs.b]
    entries: list[dict[str, AreaEntry]] = [{} for _ in obs.models]
    for name in AREAS:
        rows = area == name
        if not rows.any():
            continue
        scored = area_score(
            sums(obs, params, rows), score.theta0, summary.shift, summary.scale, summary.kappa
        )
        pairs = np.unique(np.stack([obs.m[rows], family[rows]]), axis=1)
        families_per_model = np.bincount(pairs[0], minlength=len(obs.models))
        for i in np.flatnonzero(families_per_model >= 2).tolist():
            entries[i][name] = AreaEntry(
                si_iq=shown(scored.si_iq[i]),
                low=shown(scored.low[i]),
                high=shown(scored.high[i]),
                si_iq_full=float(scored.si_iq[i]),
                low_full=float(scored.low[i]),
                high_full=float(scored.high[i]),
            )
    return entries


TOLERANCE = 1e-9


def recompute(document: IndexDocument) -> str | None:
    """Section 8's pre-publication check: every SI-IQ of the document recomputed from the
    document alone; the first mismatch, or None when all agree."""
    results = [r for entry in document.models for r in entry.results]
    recomputed = {e.slug: e for e in build_index(results, document.calibration).models}
    for entry in document.models:
        other = recomputed.get(entry.slug)
        if other is None:
            return f"{entry.slug}: cannot be scored from the document"
        for name in ("theta", "se", "si_iq_full", "si_iq_low_full", "si_iq_high_full"):
            if abs(getattr(entry, name) - getattr(other, name)) > TOLERANCE:
                return _mismatch(entry.slug, name, getattr(entry, name), getattr(other, name))
        for name in ("si_iq", "si_iq_low", "si_iq_high", "ranked", "rank", "position_range"):
            if getattr(entry, name) != getattr(other, name):
                return _mismatch(entry.slug, name, getattr(entry, name), getattr(other, name))
        if entry.areas.keys() != other.areas.keys() or any(
            abs(entry.areas[a].si_iq_full - other.areas[a].si_iq_full) > TOLERANCE
            for a in entry.areas
        ):
            return f"{entry.slug}: area scores differ when recomputed"
    return None


def _mismatch(slug: str, field: str, published: object, recomputed: object) -> str:
    return f"{slug}: {field} is {published}, recomputed {recomputed}"


class BenchmarkRow(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a model page's per-benchmark table: the input and what it weighs."""

    benchmark: str
    family: str
    area: str
    evaluator: str
    score: float
    config: str
    released: str | None
    y: float
    v: float
    alpha: float
    beta: float
    sigma2: float
    weight: float


class HistoryPoint(msgspec.Struct, frozen=True, kw_only=True):
    """One archived day of a model, rescored with the parameters in force (section 11)."""

    date: str
    si_iq: int
    si_iq_low: int
    si_iq_high: int


class ModelPage(msgspec.Struct, frozen=True, kw_only=True):
    version: str
    model: ModelEntry
    benchmarks: list[BenchmarkRow]
    history: list[HistoryPoint] = []
    """The model's history curve: /data/history.json's days that score it, oldest first."""
    attributions: list[Attribution] = msgspec.field(default_factory=list)
    """Section 10: the attributions the index's sources require, on every page."""


def model_page(document: IndexDocument, slug: str) -> ModelPage:
    """A model's score, areas and position range with the per-benchmark table behind them."""
    entry = next((m for m in document.models if m.slug == slug), None)
    if entry is None:
        raise NotFound(f"no SI-IQ for model {slug!r}")
    benchmarks, params = calibrated_parameters(document.calibration)
    obs = Observations.build(entry.results, benchmarks)
    weight = weights(obs, params.sigma2)
    by_name = {r.benchmark: r for r in entry.results}
    rows = []
    for k in range(len(obs.m)):
        bench = obs.benchmarks[obs.b[k]]
        result = by_name[bench.benchmark]
        i = benchmarks.index(bench)
        rows.append(
            BenchmarkRow(
                benchmark=bench.benchmark,
                family=bench.family,
                area=bench.area,
                evaluator=result.evaluator or bench.evaluator,
                score=result.score,
                config=result.config,
                released=None if result.released is None else result.released.isoformat(),
                y=float(obs.y[k]),
                v=float(obs.v[k]),
                alpha=float(params.alpha[i]),
                beta=float(params.beta[i]),
                sigma2=float(params.sigma2[i]),
                weight=float(weight[k]),
            )
        )
    return ModelPage(
        version=document.version,
        model=entry,
        benchmarks=rows,
        attributions=document.attributions,
    )
