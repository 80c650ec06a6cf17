"""Aider's LLM leaderboards (SI-IQ section 10: Apache-2.0): `polyglot_leaderboard.yml` and its
older siblings, one record per benchmark run, read as the YAML text wrote each value."""

from __future__ import annotations

from adapters.sources.tables import require_columns, yaml_records
from domain.siiq.source_format import Table

NAME = "model"
SCORE = {"refactor_leaderboard.yml": "pass_rate_1"}
"""The score each leaderboard publishes: `pass_rate_2` (solved after one retry with the test
output), except the refactoring leaderboard, which has only `pass_rate_1`."""


def score_column(file: str) -> str:
    return SCORE.get(file.rsplit("/", 1)[-1], "pass_rate_2")


def parse(name: str, data: bytes) -> list[Table]:
    file = name.rsplit("/", 1)[-1]
    table = yaml_records(file, data)
    require_columns(table, (NAME, score_column(file)))
    return [table]
