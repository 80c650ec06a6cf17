"""The bundled demo (`scripts/demo/`): the methodology's real changelog, a labelled demo cycle
with real terminal sessions of stand-in commands, and a synthetic SI-IQ calibration, so that
every page has something to show."""

from __future__ import annotations

from pathlib import Path

import msgspec

from api.services.calibrate import calibrate_files
from api.services.ingest import ingest
from api.services.ports import Banners, EvidenceStore
from ledger.ledger import Ledger


class DemoReport(msgspec.Struct, frozen=True, kw_only=True):
    records: int
    appended: int
    unchanged: int
    ledger_size: int
    siiq_accepted: bool | None
    """Whether the demo's SI-IQ calibration was accepted (None: the demo has none)."""


def load_demo(ledger: Ledger, folder: Path, store: EvidenceStore, banners: Banners) -> DemoReport:
    """Ingest the demo's records (`*.jsonl`) and calibrate its SI-IQ inputs (`siiq/`)."""
    report = ingest(ledger, sorted(folder.glob("*.jsonl")), store, banners)
    siiq = folder / "siiq"
    accepted = None
    if (siiq / "results.csv").exists():
        summary = calibrate_files(
            ledger, siiq / "results.csv", siiq / "benchmarks.csv", siiq / "reference.txt"
        )
        accepted = summary.accepted
    return DemoReport(
        records=report.records,
        appended=ledger.size() - report.ledger_size + report.appended,
        unchanged=report.unchanged,
        ledger_size=ledger.size(),
        siiq_accepted=accepted,
    )
