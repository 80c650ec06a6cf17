"""From the sources' tables to the index's inputs (SI-IQ sections 1, 2 and 8): every row of a
benchmark table the index reads, from the one source each benchmark names (Epoch AI's export,
OpenRouter's GPQA Diamond run, BFCL's tables), becomes a result (matched to its Epoch model
group, independent, with a score; for OpenRouter the median provider's row) or is left out with
the reason; each result keeps its row as published, with its own file's address and SHA-256,
for /data/evidence.jsonl."""

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
    BenchmarkSource,
    definition,
    number,
    score_of,
)
from domain.siiq.independence import developer_reported
from domain.siiq.matching import (
    EPOCH,
    Alias,
    Match,
    Version,
    epoch_groups,
    other_source_names,
    release_date,
    run_setting_removed,
    trimmed,
    without_namespace,
)
from domain.siiq.records import Benchmark, Result
from domain.siiq.selection import ProviderRun, median_provider
from domain.siiq.source_format import Row

NOT_MATCHED = "model version not matched to a group"
DEVELOPER = "reported by the model's developer"
NO_SCORE = "no score"
NOT_MEDIAN = "not the median provider"
NO_COVERING = "no provider covered 95% of the questions"


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


TableKey = tuple[str, str]
"""A table by its source and its name in the source's file: ("epoch", "gpqa_diamond.csv")."""


def index_intake(
    exports: Sequence[Sequence[Version]],
    tables: Mapping[TableKey, Sequence[Row]],
    where: Mapping[TableKey, SnapshotFile],
    aliases: Iterable[Alias] = (),
    reference: Iterable[str] = (),
) -> Intake:
    """The index's inputs from each benchmark's own source: per row, the score (section 2), the
    model group (section 1, "Qué modelo": Epoch's versions by its groups table, `exports`
    oldest first; other sources' names matched to those groups), OpenRouter's median provider
    (section 1) and independence (section 1.1). `where` gives each table's file (address and
    SHA-256)."""
    groups = epoch_groups(exports, reference, aliases)
    dates = release_dates(exports[-1] if exports else (), groups)
    tally: Counter[str] = Counter()
    results, evidence, benchmarks = [], [], []
    waiting: dict[tuple[str, str], Match] = {}
    for name, source in BENCHMARKS.items():
        key = (source.source, source.table)
        if key not in tables:
            tally[f"{source.table} not in the snapshot"] += 1
            continue
        rows = tables[key]
        matches = _matches(source, rows, groups, aliases)
        used: list[Row] = []
        for row, first in _rows(source, rows):
            written = trimmed(row.get(source.name_column))
            match = matches.get(written) or Match(
                source=source.source, name=written, group=None, reason="no name"
            )
            why = first or left_out(source, row, match)
            tally[why or "kept"] += 1
            if why == NOT_MATCHED and match.name:
                waiting.setdefault((match.source, match.name), match)
            if why is None and match.group is not None:
                used.append(row)
                day = _release_date(source, row, match, dates)
                result = _result(name, source, row, match, day)
                results.append(result)
                evidence.append(_line(result, row, where[key]))
        benchmarks.append(definition(name, source, used))
    return Intake(
        results=results,
        benchmarks=benchmarks,
        evidence=evidence,
        waiting=sorted(waiting.values(), key=lambda m: (m.source != EPOCH, m.source, m.name)),
        left_out=dict(sorted(tally.items())),
    )


def _matches(
    source: BenchmarkSource,
    rows: Sequence[Row],
    groups: Mapping[str, Match],
    aliases: Iterable[Alias],
) -> dict[str, Match]:
    """Section 1, "Qué modelo": each name of the table and its model group, or why it waits."""
    names = {trimmed(row.get(source.name_column)) for row in rows} - {""}
    if source.source != EPOCH:
        return other_source_names(source.source, sorted(names), groups, aliases)
    missing = "not in Epoch AI's groups table"
    return {
        n: groups.get(n) or Match(source=EPOCH, name=n, group=None, reason=missing) for n in names
    }


def _rows(source: BenchmarkSource, rows: Sequence[Row]) -> list[tuple[Row, str | None]]:
    """The table's rows, each with why it is left out before the model is asked about; for a
    run by several hosting providers (OpenRouter), only the median provider's row per model
    counts (section 1)."""
    if source.source != "openrouter":
        return [(row, None) for row in rows]
    by_model: dict[str, list[Row]] = {}
    for row in rows:
        by_model.setdefault(trimmed(row.get(source.name_column)), []).append(row)
    found: list[tuple[Row, str | None]] = []
    for model_rows in by_model.values():
        runs = [_provider_run(source, row) for row in model_rows]
        chosen = median_provider([r for r in runs if r is not None], source.questions or 0)
        for row, run in zip(model_rows, runs, strict=True):
            if chosen is None:
                found.append((row, NO_COVERING))
            else:
                found.append((row, None if run is chosen else NOT_MEDIAN))
    return found


def _provider_run(source: BenchmarkSource, row: Row) -> ProviderRun | None:
    """One hosting provider's runs as OpenRouter's `benchmarks` row gives them (ARCHITECTURE.md,
    Wave 3 contract); None when a number is missing."""
    score = score_of(source, row)
    attempted, runs = number(row.get("questions_attempted")), number(row.get("runs"))
    if score is None or attempted is None or runs is None:
        return None
    own = row.get("own_hosting") is True
    return ProviderRun(str(row.get("provider") or ""), score, int(attempted), int(runs), own)


class ReleaseDates(msgspec.Struct, frozen=True, kw_only=True):
    """The newest export's release dates: each version's, and each group's first version's."""

    versions: dict[str, date]
    groups: dict[str, date]


def release_dates(newest: Sequence[Version], matches: Mapping[str, Match]) -> ReleaseDates:
    """Per version and per model group (as section 1 matched the versions to groups)."""
    versions = {v.version: v.released for v in newest if v.released is not None}
    groups: dict[str, date] = {}
    for v in newest:
        group = matches[v.version].group if v.version in matches else None
        if v.released is not None and group and (group not in groups or v.released < groups[group]):
            groups[group] = v.released
    return ReleaseDates(versions=versions, groups=groups)


def _release_date(
    source: BenchmarkSource, row: Row, match: Match, dates: ReleaseDates
) -> date | None:
    """A result's release date (section 7's 60 days): an Epoch version's own (else its row's);
    another source's name takes its group's, the group's first version's in the newest export
    (which of the group's versions it ran is not known)."""
    if source.source == EPOCH:
        return dates.versions.get(match.name) or release_date(row.get(RELEASED))
    return dates.groups.get(match.group or "")


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


def _result(name: str, source: BenchmarkSource, row: Row, match: Match, day: date | None) -> Result:
    return Result(
        model=match.group or "",
        benchmark=name,
        score=score_of(source, row) or 0.0,
        evaluator=source.evaluator,
        released=day,
        config=_config(source, row, match.name),
        source=source.table,
    )


def _config(source: BenchmarkSource, row: Row, name: str) -> str:
    """The run configuration of a row: Epoch's suffix after the last underscore ("high"), an
    explicit run setting another source writes after the name ("FC"), OpenRouter's provider."""
    if source.source == "openrouter":
        return str(row.get("provider") or "")
    if source.source == EPOCH:
        return name.rsplit("_", 1)[1] if "_" in name else ""
    bare = run_setting_removed(without_namespace(name))
    return name[len(bare) :].strip(" ()") if name.startswith(bare) else ""


def _line(result: Result, row: Row, where: SnapshotFile) -> EvidenceLine:
    return EvidenceLine(
        model=result.model,
        benchmark=result.benchmark,
        value=result.score,
        row=row,
        url=where.url,
        sha256=where.sha256,
        source=BENCHMARKS[result.benchmark].source,
        file=result.source,
    )
