"""`argusic siiq calibrate | update | watch | report | index | recompute`."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import click
import msgspec

from api.cli.output import (
    Session,
    emit,
    json_option,
    pass_session,
    published_option,
    serve_stand_in,
)
from api.http import site_check
from api.services.calibrate import calibrate_files, recompute_document
from api.services.siiq_publication import publish_check
from api.services.siiq_report import report_markdown, siiq_report
from api.services.siiq_update import HoldsReport, UpdateReport, holds_report, update_siiq
from api.services.siiq_watch import Watch, WatchRound, watch
from api.wiring import crosscheck_stand_in, crosschecker
from domain.siiq.cadence import EVERY_SECONDS
from domain.siiq.data import read_reference
from domain.siiq.index import IndexDocument
from domain.siiq.records import CalibrationSummary
from domain.siiq.reference_group import REFERENCE_GROUP

EXIT_MISMATCH = 1
existing = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group("siiq")
def siiq() -> None:
    """SI-IQ: calibrate, publish and recompute the capability index."""


def _calibration_human(summary: CalibrationSummary) -> str:
    kept = sum(b.kept for b in summary.benchmarks)
    if not summary.accepted:
        left_out = "\n".join(
            f"  {b.benchmark}: {b.reason}" for b in summary.benchmarks if not b.kept
        )
        return f"rejected: {summary.reason}\n{left_out}"
    return (
        f"accepted: {kept} benchmarks, {len(summary.fitted_models)} models, "
        f"shift {summary.shift:.6f}, scale {summary.scale:.6f}, kappa {summary.kappa:.4f}"
    )


@siiq.command("calibrate")
@click.option("--results", type=existing, required=True, help="results CSV (docs/siiq-input.md)")
@click.option("--benchmarks", type=existing, required=True, help="benchmarks CSV")
@click.option("--reference", type=existing, required=True, help="reference group, a slug a line")
@click.option(
    "--major",
    is_flag=True,
    help="A new major version (sections 4 and 11), at most once a year: the reference group "
    "and the benchmark set may change; the ranked count and rank correlation checks still "
    "apply; its conversion table (old score -> new) is published.",
)
@click.option(
    "--frozen",
    type=existing,
    default=None,
    help="The frozen reference group the first calibration must use (section 4), a slug a "
    "line; default: section 4's list. For a synthetic world with its own group.",
)
@json_option
@pass_session
def calibrate_command(
    session: Session,
    *,
    results: Path,
    benchmarks: Path,
    reference: Path,
    major: bool,
    frozen: Path | None,
    as_json: bool,
) -> None:
    """Calibrate SI-IQ (section 3) and record it, accepted or rejected, in the ledger."""
    group = REFERENCE_GROUP if frozen is None else read_reference(frozen.read_text())
    argusic = session.argusic
    summary = calibrate_files(
        argusic.ledger,
        results,
        benchmarks,
        reference,
        major=major,
        frozen=group,
        now=argusic.clock(),
    )
    emit(summary, _calibration_human)


def _update_human(report: UpdateReport) -> str:
    if report.halted:
        return f"halted: {report.reason}"
    lines = [
        f"{report.published} values published, {report.removed} removed, "
        f"{len(report.held)} held, {len(report.confirmed)} confirmed"
    ]
    lines += [f"frozen: {', '.join(report.frozen)}"] if report.frozen else []
    lines += [f"last data kept: {', '.join(report.kept)}"] if report.kept else []
    if report.calibration is not None:
        lines.append(_calibration_human(report.calibration))
    if report.publication is not None:
        p = report.publication
        lines.append(f"published {p.version}" if p.published else f"publication halted: {p.reason}")
    return "\n".join(lines)


@siiq.command("update")
@json_option
@pass_session
def update_command(session: Session, as_json: bool) -> None:
    """Section 8's checks over the latest snapshots (cross-check at ARGUSIC_CROSSCHECK_URL,
    holds, freezes, revisions), the first and the monthly calibration, then the publication
    check and the publication; every transition recorded."""
    argusic = session.argusic
    checker = crosschecker(os.environ)
    try:
        site = site_check(argusic)
        emit(update_siiq(argusic.ledger, checker, argusic.clock(), site), _update_human)
    finally:
        if checker is not None:
            checker.close()


def _round_line(report: WatchRound) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    sys.stdout.buffer.flush()


@siiq.command("watch")
@click.option(
    "--every",
    type=click.FloatRange(min=0, min_open=True),
    default=EVERY_SECONDS,
    show_default=True,
    help="Seconds from one round's start to the next's.",
)
@pass_session
def watch_command(session: Session, every: float) -> None:
    """Section 8 on a schedule: each round fetches every source (ARGUSIC_SOURCES_CONFIG) and
    runs `siiq update`; one JSON line a round on stdout. SIGTERM or SIGINT during a round
    lets it finish (its appends all made), between rounds ends the watch at once."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    argusic = session.argusic
    config = argusic.sources_config()
    checker = crosschecker(os.environ)
    try:
        with argusic.source_reader(config) as reader:
            site = site_check(argusic)
            rounds = Watch(
                argusic.ledger,
                reader,
                sources=config.sources,
                checker=checker,
                clock=argusic.clock,
                site=site,
            )
            watch(rounds.round, every, stop, _round_line)
    finally:
        if checker is not None:
            checker.close()


def _holds_human(document: HoldsReport) -> str:
    lines = [f"{len(document.holds)} held values"]
    lines += [
        f"  {h.hold}: {h.value} (published {h.published}) "
        f"since {h.since:%Y-%m-%d %H:%M}, {h.reason}"
        for h in document.holds
    ]
    lines += [f"notice {n.at:%Y-%m-%d %H:%M}: {n.message}" for n in document.notifications]
    return "\n".join(lines)


@siiq.command("holds")
@json_option
@pass_session
def holds_command(session: Session, as_json: bool) -> None:
    """Held values (section 8), oldest first, and the notices to the operator."""
    emit(holds_report(session.argusic.siiq), _holds_human)


@siiq.command("publish-check")
@json_option
@pass_session
def publish_check_command(session: Session, as_json: bool) -> None:
    """Section 8's pre-publication check at the head: every SI-IQ recomputed from its inputs,
    vanishing ranked models, scores moving without a recalibration, then every page parsed and
    every internal link resolved. Publishes nothing."""
    report = publish_check(session.argusic.ledger, site_check(session.argusic))
    emit(report, lambda r: "publishable" if r.publishable else f"halted: {r.reason}")
    if not report.publishable:
        sys.exit(EXIT_MISMATCH)


@siiq.command("report")
@json_option
@pass_session
def report_command(session: Session, as_json: bool) -> None:
    """The real data under the method: which reference members have results, the calibration
    outcome with every reason, the ranking when one is in force (Markdown without --json)."""
    argusic = session.argusic
    emit(siiq_report(argusic.ledger, argusic.clock().date()), report_markdown)


def _index_human(document: IndexDocument) -> str:
    lines = [f"SI-IQ {document.version}: {len(document.models)} models"]
    lines += [
        f"  {m.rank:>3} {m.slug:40} {m.si_iq:>4} ({m.si_iq_low}..{m.si_iq_high})"
        for m in document.models
        if m.ranked
    ]
    return "\n".join(lines)


@siiq.command("index")
@click.option("--as-of", type=int, help="Answer as of this ledger position.")
@published_option
@json_option
@pass_session
def index_command(session: Session, as_of: int | None, as_json: bool) -> None:
    """The index document published as /data/index.json."""
    emit(session.siiq.index(as_of), _index_human)


@siiq.command("recompute")
@click.argument("document", type=existing)
@json_option
def recompute_command(document: Path, as_json: bool) -> None:
    """Recompute every SI-IQ of an index document from it alone (section 8's check)."""
    report = recompute_document(document.read_bytes())
    emit(report, lambda r: f"all {r.models} scores match" if r.ok else f"mismatch: {r.mismatch}")
    if not report.ok:
        sys.exit(EXIT_MISMATCH)


@click.group("crosscheck")
def crosscheck() -> None:
    """SI-IQ section 8's cross-check service."""


@crosscheck.command("stand-in")
@click.option("--port", type=int, default=0, show_default=True)
def crosscheck_stand_in_command(port: int) -> None:
    """Serve an OpenAI-compatible chat-completions checker on 127.0.0.1 (tests, demo) that
    confirms a number only when the quoted row carries it; prints its base URL, which
    ARGUSIC_CROSSCHECK_URL takes."""
    serve_stand_in(crosscheck_stand_in(port))
