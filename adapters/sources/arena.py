"""The Arena leaderboard (SI-IQ section 10: CC BY 4.0): `{category: {model: {"rating",
"rating_q025", "rating_q975"}}}`. Each category is a table; a row is one model's member, its key
written as `"model"` beside the values exactly as published."""

from __future__ import annotations

from adapters.sources.tables import json_document, records_table, require_columns, sha256
from domain.siiq.source_format import Row, SourceFormatError, Table

NAME = "model"
SCORE = "rating"


def parse(name: str, data: bytes) -> list[Table]:
    file = name.rsplit("/", 1)[-1]
    document = json_document(file, data)
    if not isinstance(document, dict) or not all(isinstance(c, dict) for c in document.values()):
        raise SourceFormatError(file, "not an object of categories, each an object of models")
    digest, tables = sha256(data), []
    for category in sorted(document):
        rows: list[Row] = []
        for model, entry in document[category].items():
            if not isinstance(entry, dict) or NAME in entry:
                raise SourceFormatError(file, f"{category}/{model}: not a rating object")
            rows.append({NAME: model, **entry})
        table = records_table(f"{file}#{category}", digest, rows)
        require_columns(table, (NAME, SCORE))
        tables.append(table)
    if not tables:
        raise SourceFormatError(file, "no category")
    return tables
