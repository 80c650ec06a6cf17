"""The Berkeley Function Calling Leaderboard (SI-IQ section 10: Apache-2.0): the score tables of
its website (`data_overall.csv`, `data_live.csv`, ...), model names with "(FC)" or "(Prompt)"."""

from __future__ import annotations

from adapters.sources.tables import csv_table, require_columns
from domain.siiq.source_format import Table

NAME = "Model"
SCORE = {
    "data_overall.csv": "Overall Acc",
    "data_live.csv": "Live Overall Acc",
    "data_non_live.csv": "Non-Live Overall Acc",
    "data_multi_turn.csv": "Multi Turn Overall Acc",
    "data_agentic.csv": "Agentic Overall Acc",
    "data_format_sensitivity.csv": "Format Sensitivity Max Delta",
}


def score_column(file: str) -> str:
    return SCORE.get(file.rsplit("/", 1)[-1], "Overall Acc")


def parse(name: str, data: bytes) -> list[Table]:
    file = name.rsplit("/", 1)[-1]
    table = csv_table(file, data)
    require_columns(table, (NAME, score_column(file)))
    return [table]
