"""Where the tests find the workplace's rules and public data: the copies in `reference/`
(reference/README.md), so a clone anywhere runs."""

from __future__ import annotations

from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
SEEDS = REFERENCE / "seeds"
DATA = REFERENCE / "data"
EPOCH_JAN = DATA / "epoch" / "benchmark_data_zip_2026-01"
EPOCH_APR = DATA / "epoch" / "benchmark_data_zip_2026-04"
