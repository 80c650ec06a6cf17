"""`argusic demo`: the bundled demo (`scripts/demo/`, written by `build.py`) into an empty
ledger: a synthetic SI-IQ calibration (`siiq/`) and three archived days of its inputs first,
then the files in order: records
ingested; actions (`*.actions.jsonl`) signed by the demo's own owner, made here, and submitted;
an approval of `"position": "head"` approves the ledger as it then stands."""

from __future__ import annotations

import csv
import hashlib
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from api.services.calibrate import calibrate_files
from api.services.ingest import ingest
from api.services.operators import ActionDesk, key_path, read_action
from api.services.ports import Banners, EvidenceStore
from api.services.reader import ProjectionReader
from api.services.siiq_update import publish_inputs
from domain.errors import InvalidInput
from domain.events import PublishedValue
from domain.siiq.data import read_reference, read_results
from ledger.ledger import Ledger
from ledger.signing_key import create_signer, load_signer
from projections.methodology import MethodologyProjection

OWNER = "demo-owner"


def _action(line: bytes, head: int) -> bytes:
    data = msgspec.json.decode(line)
    if data.get("position") == "head":
        data["position"] = head
    return msgspec.json.encode(data)


class DemoReport(msgspec.Struct, frozen=True, kw_only=True):
    records: int
    appended: int
    unchanged: int
    ledger_size: int
    siiq_accepted: bool | None
    """Whether the demo's SI-IQ calibration was accepted (None: the demo has none)."""


def _calibrate(ledger: Ledger, siiq: Path) -> bool | None:
    if not (siiq / "results.csv").exists():
        return None
    files = (siiq / "results.csv", siiq / "benchmarks.csv", siiq / "reference.txt")
    frozen = read_reference(files[2].read_text())  # the synthetic world's own frozen group
    accepted = calibrate_files(ledger, *files, frozen=frozen).accepted
    if accepted:
        _archive(ledger, siiq / "results.csv")
    return accepted


ARCHIVED_DAYS = 3
FIRST_DAY = datetime(2026, 11, 28, 6, tzinfo=UTC)
DRIFTING = 5
"""The demo's first models whose first result rises a point a day, so the curves move."""


def _archive(ledger: Ledger, results: Path) -> None:
    """Three days of the demo's SI-IQ inputs through the update's publication (SI-IQ section
    11's history): each day at 06:00 UTC, the first few models' first result a point higher."""
    text = results.read_bytes()
    rows = list(csv.DictReader(io.StringIO(text.decode())))
    sha = hashlib.sha256(text).hexdigest()
    for day in range(ARCHIVED_DAYS):
        values = []
        for i, (row, result) in enumerate(zip(rows, read_results(text.decode()), strict=True)):
            score = result.score
            if day and i % (len(rows) // DRIFTING) == 0:
                score = min(round(score + 0.01 * day, 6), 0.99)
            values.append(
                PublishedValue(
                    result=msgspec.structs.replace(result, score=score),
                    row={**row, "score": repr(score)},
                    url="scripts/demo/siiq/results.csv",
                    sha256=sha,
                    source="demo",
                    file="results.csv",
                    columns=list(row),
                )
            )
        publish_inputs(ledger, values, FIRST_DAY + timedelta(days=day))


def load_demo(
    folder: Path,
    *,
    ledger: Ledger,
    store: EvidenceStore,
    banners: Banners,
    home: Path,
) -> DemoReport:
    """Every file of the demo, in order; the demo only ever goes into an empty ledger."""
    if ledger.size():
        raise InvalidInput("the demo loads only into an empty ledger")
    accepted = _calibrate(ledger, folder / "siiq")
    desk = ActionDesk(ledger, ProjectionReader(ledger, MethodologyProjection()))
    signer = load_signer(key_path(home, OWNER)) or create_signer(key_path(home, OWNER), OWNER)
    records = 0
    for path in sorted(folder.glob("*.jsonl")):
        if path.name.endswith(".actions.jsonl"):
            if not desk.reader.latest().authority.operators:
                desk.register_first_owner(signer)
            for line in path.read_bytes().splitlines():
                desk.act(signer, read_action(_action(line, ledger.size())))
        else:
            records += ingest(ledger, [path], store, banners).records
    size = ledger.size()
    return DemoReport(
        records=records, appended=size, unchanged=0, ledger_size=size, siiq_accepted=accepted
    )
