"""`argusic sources fetch`: read SI-IQ's data sources (SI-IQ section 8)."""

from __future__ import annotations

import click

from api.cli.output import Session, emit, json_option, pass_session
from api.services.sources import FetchReport, fetch_sources


def _fetch_human(report: FetchReport) -> str:
    return "\n".join(
        f"{row.source:10} {row.status:9} {(row.sha256 or '-')[:16]:16} {row.url}"
        + (f"\n{'':10} {row.reason}" if row.reason else "")
        for row in report.sources
    )


@click.command("fetch")
@click.option("--source", "only", help="Fetch only this source (a table of the configuration).")
@json_option
@pass_session
def fetch_command(session: Session, only: str | None, as_json: bool) -> None:
    """Fetch every configured source with conditional requests; archive each distinct file by
    its SHA-256 and record what changed, failures included (ARGUSIC_SOURCES_CONFIG)."""
    argusic = session.argusic
    config = argusic.sources_config()
    with argusic.source_reader(config) as reader:
        emit(fetch_sources(argusic.ledger, reader, config.sources, only), _fetch_human)
