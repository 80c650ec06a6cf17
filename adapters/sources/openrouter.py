"""OpenRouter's public data (SI-IQ sections 1, 8 and 10: CC BY 4.0), read through its manifest and
the dated, immutable file the manifest points to, verified by SHA-256.

Two datasets. A `rankings-daily` file is the response OpenRouter documents
(`reference/data/openrouter/FORMAT_NOTES.md`): `{"data": [{"date", "model_permaslug",
"total_tokens"}], "meta": {"as_of", "start_date", "end_date", "version"}}`. A `benchmarks` file
(OpenRouter's own GPQA Diamond runs, in the form ARCHITECTURE.md's Wave 3 contract fixes until
the real export is seen; this module is the one to change then) is `{"data": [{"date",
"benchmark", "model_permaslug", "model_name", "provider", "own_hosting", "score", "questions",
"questions_attempted", "runs"}], "meta": {"as_of", "version"}}`, one row per model and hosting
provider. The manifest, whose format OpenRouter does not document yet, is read as
`docs/siiq-sources.md` fixes it: `{"files": [{"date": "YYYY-MM-DD", "dataset": "rankings-daily"
| "benchmarks", "url": "<address, may be relative to the manifest>", "sha256": "<hex>", "bytes":
N}]}` (an entry without `dataset` is a rankings-daily file); per dataset, the newest date is the
current file. A configured address names its dataset after a `#` (`manifest.json#benchmarks`);
without one it is `rankings-daily`.
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple
from urllib.parse import urljoin

from adapters.sources.tables import json_document, records_table, require_columns, sha256
from domain.siiq.source_format import DigestMismatch, Row, SourceFormatError, Table

NAME = "model_permaslug"
SCORE = "total_tokens"
ROW_FIELDS = ("date", NAME, SCORE)
HEX64 = re.compile(r"^[0-9a-f]{64}$")
RANKINGS = "rankings-daily"
BENCHMARKS = "benchmarks"
DATASETS = (RANKINGS, BENCHMARKS)
BENCHMARK_FIELDS = (
    "date",
    "benchmark",
    NAME,
    "model_name",
    "provider",
    "own_hosting",
    "score",
    "questions",
    "questions_attempted",
    "runs",
)


class DatedFile(NamedTuple):
    """The file a manifest names as current."""

    day: date
    url: str
    sha256: str
    size: int | None
    dataset: str = RANKINGS


def dataset_of(address: str) -> tuple[str, str]:
    """The manifest's address and the dataset a configured address reads (after its `#`)."""
    manifest, _, dataset = address.partition("#")
    dataset = dataset or RANKINGS
    if dataset not in DATASETS:
        raise SourceFormatError("manifest", f"unknown dataset {dataset!r} ({', '.join(DATASETS)})")
    return manifest, dataset


def newest_file(manifest_url: str, data: bytes, dataset: str = RANKINGS) -> DatedFile:
    """The manifest's newest dated file of `dataset`, its address made absolute."""
    document = json_document("manifest", data)
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, list) or not files:
        raise SourceFormatError("manifest", "no 'files' list")
    entries = [e for e in (_entry(manifest_url, item) for item in files) if e.dataset == dataset]
    if not entries:
        raise SourceFormatError("manifest", f"no {dataset} file")
    return max(entries, key=lambda e: (e.day, e.url))


def _entry(manifest_url: str, item: object) -> DatedFile:
    if not isinstance(item, dict):
        raise SourceFormatError("manifest", "a file entry is not an object")
    try:
        day = date.fromisoformat(str(item["date"]))
        url = urljoin(manifest_url, str(item["url"]))
        digest = str(item["sha256"]).lower()
    except (KeyError, ValueError) as e:
        raise SourceFormatError(
            "manifest", f"a file entry lacks a date, url or sha256 ({e})"
        ) from e
    if not HEX64.match(digest):
        raise SourceFormatError("manifest", f"{url}: sha256 is not 64 hexadecimal digits")
    size = item.get("bytes")
    dataset = item.get("dataset", RANKINGS)
    if dataset not in DATASETS:
        raise SourceFormatError("manifest", f"{url}: unknown dataset {dataset!r}")
    return DatedFile(day, url, digest, size if isinstance(size, int) else None, dataset)


def verify(expected: DatedFile, data: bytes) -> None:
    """Section 8: the dated file is used only when its SHA-256 is the manifest's."""
    found = sha256(data)
    if found != expected.sha256:
        raise DigestMismatch(
            expected.url.rsplit("/", 1)[-1],
            f"SHA-256 {found} is not the manifest's {expected.sha256}",
        )


def parse(name: str, data: bytes, dataset: str = RANKINGS) -> list[Table]:
    """The dated file: its rows and its `meta` as a one-row table. A rankings-daily file's table
    is named by the file (a row per day and model); a benchmarks file's is `benchmarks` (a row
    per model and hosting provider), so that each day's file is the same table again."""
    file = name.rsplit("/", 1)[-1]
    document = json_document(file, data)
    rows = document.get("data") if isinstance(document, dict) else None
    meta = document.get("meta") if isinstance(document, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SourceFormatError(file, "no 'data' list of rows")
    if not isinstance(meta, dict):
        raise SourceFormatError(file, "no 'meta' object")
    digest = sha256(data)
    if dataset == BENCHMARKS:
        table = records_table(BENCHMARKS, digest, rows)
        require_columns(table, BENCHMARK_FIELDS)
        _check_runs(file, rows)
        return [table, records_table(f"{BENCHMARKS}#meta", digest, [meta])]
    table = records_table(file, digest, rows)
    require_columns(table, ROW_FIELDS)
    bad = next((r for r in rows if not (isinstance(r[SCORE], str) and r[SCORE].isdigit())), None)
    if bad is not None:
        raise SourceFormatError(file, f"{SCORE} {bad[SCORE]!r} is not a decimal string")
    return [table, records_table(f"{file}#meta", digest, [meta])]


def _check_runs(file: str, rows: list[Row]) -> None:
    """A benchmarks row's numbers are JSON numbers of their kind: a score is a proportion, the
    question counts and runs whole numbers, own hosting true or false (named by its row)."""
    for number, row in enumerate(rows, start=1):
        where = f"row {number} ({row.get(NAME)!r}, {row.get('provider')!r})"
        score = row["score"]
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
            raise SourceFormatError(file, f"{where}: score {score!r} is not a proportion")
        for field in ("questions", "questions_attempted", "runs"):
            value = row[field]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SourceFormatError(file, f"{where}: {field} {value!r} is not a whole number")
        if not isinstance(row["own_hosting"], bool):
            raise SourceFormatError(file, f"{where}: own_hosting is not true or false")
