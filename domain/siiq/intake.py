"""From Epoch AI's export to the index's inputs (SI-IQ sections 1, 2 and 8): every row of a
benchmark table the index reads becomes a result (matched to its model group, independent,
with a score) or is left out with the reason; each result keeps its row as published, with its
file's address and SHA-256, for /data/evidence.jsonl."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from domain.siiq.benchmark_sources import (
    BENCHMARKS,
    ORGANIZATION,
    RELEASED,
    VERSION,
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
            score = score_of(source, row)
            version = trimmed(row.get(VERSION))
            match = groups.get(version) or Match(
                source=EPOCH, name=version, group=None, reason="not in Epoch AI's groups table"
            )
            if score is None:
                tally[NO_SCORE] += 1
            elif match.group is None:
                tally[NOT_MATCHED] += 1
                if version:
                    waiting.setdefault(version, match)
            elif developer_reported(row, str(row.get(ORGANIZATION) or "")):
                tally[DEVELOPER] += 1
            else:
                tally["kept"] += 1
                used.append(row)
                day = released.get(version) or release_date(row.get(RELEASED))
                config = version.rsplit("_", 1)[1] if "_" in version else ""
                results.append(
                    Result(
                        model=match.group,
                        benchmark=name,
                        score=score,
                        evaluator=source.evaluator,
                        released=day,
                        config=config,
                        source=source.table,
                    )
                )
                evidence.append(
                    EvidenceLine(
                        model=match.group,
                        benchmark=name,
                        value=score,
                        row=row,
                        url=where[source.table].url,
                        sha256=where[source.table].sha256,
                        source=EPOCH,
                        file=source.table,
                    )
                )
        benchmarks.append(definition(name, source, used))
    return Intake(
        results=results,
        benchmarks=benchmarks,
        evidence=evidence,
        waiting=sorted(waiting.values(), key=lambda m: m.name),
        left_out=dict(sorted(tally.items())),
    )
