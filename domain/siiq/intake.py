"""From Epoch AI's export to the index's inputs (SI-IQ sections 1, 2 and 8): every row of a
benchmark table the index reads becomes a result (matched to its model group, independent,
with a score) or is left out with the reason; each result keeps its row as published, with its
file's address and SHA-256, for /data/evidence.jsonl."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

import msgspec

from domain.siiq.benchmark_sources import (
    BENCHMARKS,
    ORGANIZATION,
    RELEASED,
    VERSION,
    BenchmarkSource,
    definition,
    score_of,
)
from domain.siiq.independence import developer_reported
from domain.siiq.matching import (
    EPOCH,
    Alias,
    Match,
    Version,
    epoch_groups,
    release_date,
    trimmed,
)
from domain.siiq.records import Benchmark, Result
from domain.siiq.source_format import Row

NOT_MATCHED = "model version not matched to a group"
DEVELOPER = "reported by the model's developer"
NO_SCORE = "no score"


class EvidenceLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of /data/evidence.jsonl (SI-IQ section 8): an input row as it appeared at its
    source, with the address and SHA-256 of the file it came from."""

    model: str
    benchmark: str
    value: float
    row: dict[str, Any]
    url: str
    sha256: str
    source: str
    file: str


class Intake(msgspec.Struct, frozen=True, kw_only=True):
    results: list[Result]
    benchmarks: list[Benchmark]
    evidence: list[EvidenceLine]
    waiting: list[Match]
    left_out: dict[str, int]


class SnapshotFile(msgspec.Struct, frozen=True, kw_only=True):
    """Where a snapshot's tables came from: the address fetched and the file's SHA-256."""

    url: str
    sha256: str


def epoch_intake(
    exports: Sequence[Sequence[Version]],
    tables: Mapping[str, Sequence[Row]],
    where: Mapping[str, SnapshotFile],
    aliases: Iterable[Alias] = (),
    reference: Iterable[str] = (),
) -> Intake:
    """The index's inputs from the newest export's benchmark tables: per row, the score
    (section 2), the model group (section 1, "Qué modelo", `exports` oldest first), and
    independence (section 1.1). `where` gives each table's file (address and SHA-256)."""
    groups = epoch_groups(exports, reference, aliases)
    released = {v.version: v.released for v in (exports[-1] if exports else ())}
    tally: Counter[str] = Counter()
    results, evidence, benchmarks = [], [], []
    waiting: dict[str, Match] = {}
    for name, source in BENCHMARKS.items():
        if source.table not in tables:
            tally[f"{source.table} not in the snapshot"] += 1
            continue
        used: list[Row] = []
        for row in tables[source.table]:
            version = trimmed(row.get(VERSION))
            match = groups.get(version) or Match(
                source=EPOCH, name=version, group=None, reason="not in Epoch AI's groups table"
            )
            why = left_out(source, row, match)
            tally[why or "kept"] += 1
            if why == NOT_MATCHED and version:
                waiting.setdefault(version, match)
            if why is None and match.group is not None:
                used.append(row)
                day = released.get(version) or release_date(row.get(RELEASED))
                result = _result(name, source, row, group=match.group, version=version, day=day)
                results.append(result)
                evidence.append(_line(result, row, where[source.table]))
        benchmarks.append(definition(name, source, used))
    return Intake(
        results=results,
        benchmarks=benchmarks,
        evidence=evidence,
        waiting=sorted(waiting.values(), key=lambda m: m.name),
        left_out=dict(sorted(tally.items())),
    )


def left_out(source: BenchmarkSource, row: Row, match: Match) -> str | None:
    """Why a row of a benchmark table is not an input, or None when it is: no score (section 2),
    a version not matched to a model group (section 1), the developer's own number (1.1)."""
    if score_of(source, row) is None:
        return NO_SCORE
    if match.group is None:
        return NOT_MATCHED
    if developer_reported(row, str(row.get(ORGANIZATION) or "")):
        return DEVELOPER
    return None


def _result(
    name: str, source: BenchmarkSource, row: Row, *, group: str, version: str, day: date | None
) -> Result:
    return Result(
        model=group,
        benchmark=name,
        score=score_of(source, row) or 0.0,
        evaluator=source.evaluator,
        released=day,
        config=version.rsplit("_", 1)[1] if "_" in version else "",
        source=source.table,
    )


def _line(result: Result, row: Row, where: SnapshotFile) -> EvidenceLine:
    return EvidenceLine(
        model=result.model,
        benchmark=result.benchmark,
        value=result.score,
        row=row,
        url=where.url,
        sha256=where.sha256,
        source=EPOCH,
        file=result.source,
    )
