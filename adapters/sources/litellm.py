"""LiteLLM's `model_prices_and_context_window.json` (SI-IQ section 10: MIT): one member per model
key with its prices, context window and capability flags. Not a benchmark: a row is one model's
member (its key written as `"model"`), used to name models and show prices.

`sample_spec` documents the schema and is not a model; members that are not objects (a mirror's
`last_updated`) are not models either.
"""

from __future__ import annotations

from adapters.sources.tables import json_document, records_table, sha256
from domain.siiq.source_format import MissingColumn, Row, SourceFormatError, Table

NAME = "model"
PRICES = ("input_cost_per_token", "output_cost_per_token")
NOT_MODELS = frozenset({"sample_spec"})


def parse(name: str, data: bytes) -> list[Table]:
    file = name.rsplit("/", 1)[-1]
    document = json_document(file, data)
    if not isinstance(document, dict):
        raise SourceFormatError(file, "not an object of models")
    rows: list[Row] = []
    for key, entry in document.items():
        if key in NOT_MODELS or not isinstance(entry, dict):
            continue
        if NAME in entry:
            raise SourceFormatError(file, f"{key}: an entry names its own {NAME!r}")
        rows.append({NAME: key, **entry})
    if not rows:
        raise SourceFormatError(file, "no model entry")
    for column in PRICES:
        if not any(column in row for row in rows):
            raise MissingColumn(file, f"no entry has {column!r} (renamed or removed?)")
    return [records_table(file, sha256(data), rows)]
