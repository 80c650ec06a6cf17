"""`argusic ledger verify | checkpoint | proof | export`."""

from __future__ import annotations

import os
import sys
from functools import partial

import click

from api.cli.output import Session, emit, json_option, pass_session, published_option
from api.cli.progress import progress_bar
from api.services.maintenance import (
    EvidenceReport,
    FullReport,
    export,
    verify_evidence,
    verify_ledger,
)
from api.wiring import open_ledger
from ledger.ledger import ConsistencyProof, InclusionProof
from ledger.verify import VerifyReport

EXIT_INTEGRITY = 3
PARALLEL_FROM = 100_000
"""Below this many events, starting worker processes costs more than it saves."""


@click.group("ledger")
def ledger() -> None:
    """The evidence ledger: verify it, read checkpoints and proofs, export it."""


def _verify_human(report: VerifyReport) -> str:
    if report.ok:
        checked = report.checkpoints_checked
        return f"ok: {report.size} events, {checked} checkpoints, root {report.root}"
    problems = [f"  {p.position}: {p.reason}" for p in report.problems[:20]]
    return "\n".join([f"FAILED at position {report.first_bad_position}", *problems])


def _evidence_human(report: EvidenceReport) -> str:
    if report.ok:
        return f"evidence ok: {report.files_checked} files re-hashed"
    problems = [
        f"  run {p.run_id}, {p.kind} ({p.copy} copy, {p.sha256}): {p.reason}"
        for p in report.problems
    ]
    return "\n".join(["evidence FAILED", *problems])


def _full_human(report: FullReport) -> str:
    return f"{_verify_human(report.ledger)}\n{_evidence_human(report.evidence)}"


@ledger.command("verify")
@click.option(
    "--evidence",
    is_flag=True,
    help="Also re-hash every stored evidence file against the SHA-256 the ledger records.",
)
@click.option(
    "--from",
    "first",
    type=click.IntRange(min=1),
    help="Verify from this position (from the checkpoint at or before it).",
)
@click.option("--to", "last", type=click.IntRange(min=1), help="Verify up to this position.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help=f"Processes, each verifying a range (default: one per core from {PARALLEL_FROM:,} "
    "events).",
)
@json_option
@pass_session
def verify_command(
    session: Session,
    *,
    evidence: bool,
    first: int | None,
    last: int | None,
    workers: int | None,
    as_json: bool,
) -> None:
    """Recompute every hash, Merkle node, root and signature; exit 3 on the first bad one."""
    ledger = session.argusic.ledger
    after = first - 1 if first else 0
    count = (last if last is not None else ledger.size()) - after
    if workers is None:
        workers = os.cpu_count() or 1 if count >= PARALLEL_FROM else 1
    with progress_bar("verifying", max(count, 0)) as progress:
        report = verify_ledger(
            ledger,
            progress,
            after=after,
            upto=last,
            workers=workers,
            opener=partial(open_ledger, session.argusic.settings),
        )
    if not evidence:
        emit(report, _verify_human)
        ok = report.ok
    else:
        files = verify_evidence(ledger, session.argusic.store)
        ok = report.ok and files.ok
        emit(FullReport(ok=ok, ledger=report, evidence=files), _full_human)
    if not ok:
        sys.exit(EXIT_INTEGRITY)


@ledger.command("checkpoint")
@click.option(
    "--size",
    type=int,
    help="The checkpoint sealed at this tree size (default: the latest; with --published, the "
    "latest approved).",
)
@published_option
@json_option
@pass_session
def checkpoint_command(session: Session, size: int | None, as_json: bool) -> None:
    """The latest signed checkpoint (C2SP tlog-checkpoint note) and the verifier key."""
    emit(session.ledger_queries.checkpoint(size), lambda v: v.note.rstrip("\n"))


@ledger.command("public-key")
@json_option
@pass_session
def public_key_command(session: Session, as_json: bool) -> None:
    """The ledger's verifier key (`<origin>+<key id>+<key>`, the signed-note vkey line): what an
    auditor checks checkpoints and audit bundles with, kept apart from what it checks."""
    emit(session.argusic.ledger_queries.public_key(), lambda v: v.public_key)


@ledger.group("proof")
def proof() -> None:
    """RFC 9162 inclusion and consistency proofs."""


def _proof_human(result: InclusionProof | ConsistencyProof) -> str:
    return "\n".join(result.path) or "(empty path)"


@proof.command("inclusion")
@click.argument("position", type=int)
@click.option(
    "--size",
    type=int,
    help="Tree size to prove against (default: the latest; with --published, the latest approved).",
)
@published_option
@json_option
@pass_session
def inclusion_command(session: Session, position: int, size: int | None, as_json: bool) -> None:
    """The audit path of the event at POSITION."""
    emit(session.ledger_queries.inclusion(position, size), _proof_human)


@proof.command("consistency")
@click.argument("first", type=int)
@click.argument("second", type=int)
@published_option
@json_option
@pass_session
def consistency_command(session: Session, first: int, second: int, as_json: bool) -> None:
    """The proof that the tree of size SECOND extends the tree of size FIRST."""
    emit(session.ledger_queries.consistency(first, second), _proof_human)


@ledger.command("export")
@click.option("--after", type=int, default=0, show_default=True, help="Start after this position.")
@pass_session
def export_command(session: Session, after: int) -> None:
    """Every event after --after as JSON lines, in position order, on stdout."""
    ledger = session.argusic.ledger
    out = sys.stdout.buffer
    with progress_bar("exporting", max(ledger.size() - after, 0)) as progress:
        for done, line in enumerate(export(ledger, after), 1):
            out.write(line)
            if progress and done % 10_000 == 0:
                progress(done)
    out.flush()
