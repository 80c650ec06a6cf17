"""`siiq report`: what the real data gives under the method (SI-IQ sections 1, 3, 4 and 7):
which reference members have results under the matching rules, the latest calibration decision
with every reason, and the ranking when a calibration is in force."""

from __future__ import annotations

from datetime import date

import msgspec

from api.services.queries import SiiqQueries
from api.services.sources import SourcesQueries
from domain.siiq.attributions import Attribution, attributions
from domain.siiq.benchmark_sources import INDEX_SOURCES
from domain.siiq.calibration import eligible
from domain.siiq.data import Observations, select
from domain.siiq.index import NOT_CALIBRATED
from domain.siiq.intake import Intake
from domain.siiq.matching import Match
from domain.siiq.records import CalibrationSummary
from domain.siiq.reference_group import REFERENCE_GROUP
from ledger.ledger import Ledger
from projections.siiq_sources import good_snapshots

FITTED = "in the fitted set"
FEW = "results, but not in the fitted set (fewer than 4 on kept benchmarks)"
NONE = "no result"


class ReferenceMember(msgspec.Struct, frozen=True, kw_only=True):
    member: str
    results: int
    benchmarks: list[str]
    status: str


class RankedModel(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    model: str
    si_iq: int
    low: int
    high: int
    position_range: list[int]


class SiiqReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq report`: the real data under the method."""

    date: date
    as_of: int
    snapshots: dict[str, str]
    left_out: dict[str, int]
    waiting: list[Match]
    reference: list[ReferenceMember]
    calibration: CalibrationSummary | None
    reasons: list[str]
    ranking: list[RankedModel]
    attributions: list[Attribution]


def siiq_report(ledger: Ledger, today: date) -> SiiqReport:
    """Which reference members have results under the matching rules, the latest calibration
    decision with every reason, and the ranking when a calibration is in force."""
    sources = SourcesQueries(ledger)
    state, intake = sources.latest(), sources.intake()
    siiq = SiiqQueries(ledger)
    decision = siiq.reader.latest().last_decision
    summary = decision.calibration if decision is not None else None
    index = siiq.index()
    return SiiqReport(
        date=today,
        as_of=ledger.size(),
        snapshots={
            f"{s.source} {s.url}": s.sha256
            for source in sorted(INDEX_SOURCES)
            for s in good_snapshots(state, source)
        },
        left_out=intake.left_out if intake else {},
        waiting=intake.waiting if intake else [],
        reference=reference_members(intake),
        calibration=summary,
        reasons=_reasons(summary),
        ranking=[
            RankedModel(
                rank=m.rank or 0,
                model=m.slug,
                si_iq=m.si_iq,
                low=m.si_iq_low,
                high=m.si_iq_high,
                position_range=list(m.position_range or ()),
            )
            for m in index.models
            if m.ranked
        ],
        attributions=attributions(
            [s for s in sorted(INDEX_SOURCES) if intake and good_snapshots(state, s)]
        ),
    )


def reference_members(intake: Intake | None) -> list[ReferenceMember]:
    """Section 4's members under the matching rules: their results on the index's benchmarks
    (the best configuration each, decision A1) and whether step 1 of section 3 fits them."""
    if intake is None:
        return [
            ReferenceMember(member=m, results=0, benchmarks=[], status=NONE)
            for m in REFERENCE_GROUP
        ]
    selection = select(intake.results, intake.benchmarks)
    obs = Observations.build(selection.results, selection.benchmarks)
    fitted, _ = eligible(obs, set(REFERENCE_GROUP), set())
    members = []
    for member in REFERENCE_GROUP:
        found = sorted(r.benchmark for r in selection.results if r.model == member)
        status = FITTED if member in fitted.models else (FEW if found else NONE)
        members.append(
            ReferenceMember(member=member, results=len(found), benchmarks=found, status=status)
        )
    return members


def _reasons(summary: CalibrationSummary | None) -> list[str]:
    if summary is None:
        return ["no calibration has been run: `argusic siiq update` runs the first"]
    reasons = [summary.reason] if summary.reason else []
    return reasons + [
        f"{b.benchmark}: {b.reason}"
        for b in summary.benchmarks
        if not b.kept and (summary.accepted or b.reason != NOT_CALIBRATED)
    ]


def report_markdown(report: SiiqReport) -> str:
    """The report as the Markdown kept in docs/siiq-real-data.md."""
    out = [
        "# SI-IQ on the real data",
        "",
        f"`argusic siiq report` on {report.date.isoformat()}, ledger position {report.as_of}.",
        "",
        *_sources_section(report),
        *_reference_section(report),
        *_calibration_section(report.calibration, report.reasons),
        *_ranking_section(report),
    ]
    return "\n".join(out).rstrip() + "\n"


def _sources_section(report: SiiqReport) -> list[str]:
    lines = ["## Inputs", ""]
    lines += [f"- `{name}`, SHA-256 `{sha}`" for name, sha in report.snapshots.items()]
    lines += [f"- {a.text}, {a.url}" for a in report.attributions]
    lines += ["", "Rows of the index's benchmark tables:", ""]
    lines += [f"- {reason}: {count}" for reason, count in report.left_out.items()]
    lines += ["", f"{len(report.waiting)} names wait for a maintainer (never ranked):", ""]
    lines += [f"- {m.source} `{m.name}`: {m.reason}" for m in report.waiting]
    return [*lines, ""]


def _reference_section(report: SiiqReport) -> list[str]:
    with_results = sum(m.results > 0 for m in report.reference)
    lines = [
        "## The reference group (section 4) under the matching rules",
        "",
        f"{with_results} of the {len(report.reference)} members have results on the index's "
        "benchmarks (the best configuration per benchmark, decision A1); a calibration model "
        "needs at least 4.",
        "",
        "| member | results | benchmarks | step 1 of section 3 |",
        "|---|---:|---|---|",
    ]
    lines += [
        f"| {m.member} | {m.results} | {', '.join(m.benchmarks)} | {m.status} |"
        for m in report.reference
    ]
    return [*lines, ""]


def _calibration_section(summary: CalibrationSummary | None, reasons: list[str]) -> list[str]:
    if summary is None:
        return ["## Calibration", "", *[f"- {r}" for r in reasons], ""]
    outcome = "accepted" if summary.accepted else "rejected"
    lines = [f"## Calibration: {outcome}", "", *[f"- {r}" for r in reasons], ""]
    if summary.accepted:
        lines += [
            f"kappa = {summary.kappa:.4f} ({summary.folds} folds, {summary.pairs} pairs), "
            f"shift = {summary.shift:.6f}, scale = {summary.scale:.6f}, "
            f"{len(summary.fitted_models)} models fitted.",
            "",
        ]
    lines += ["| benchmark | area | evaluator | n | alpha | beta | sigma2 | kept, or why not |"]
    lines += ["|---|---|---|---:|---:|---:|---:|---|"]
    for b in summary.benchmarks:
        numbers = (
            f"{b.alpha:.3f} | {b.beta:.3f} | {b.sigma2:.3f}"
            if b.kept and b.alpha is not None and b.beta is not None and b.sigma2 is not None
            else " | | "
        )
        n = f"{b.n:g} ({b.n_kind})" if b.n is not None else "-"
        lines.append(
            f"| {b.benchmark} | {b.area} | {b.evaluator} | {n} | {numbers} | "
            f"{'kept' if b.kept else b.reason} |"
        )
    return [*lines, ""]


def _ranking_section(report: SiiqReport) -> list[str]:
    if not report.ranking:
        return ["## Ranking", "", "No calibration is in force, so no model is ranked.", ""]
    lines = [
        "## Ranking",
        "",
        "| rank | model | SI-IQ | 90% interval | position range |",
        "|---:|---|---:|---|---|",
    ]
    lines += [
        f"| {m.rank} | {m.model} | {m.si_iq} | {m.low} to {m.high} | "
        f"{m.position_range[0]} to {m.position_range[-1]} |"
        for m in report.ranking
    ]
    return [*lines, ""]
