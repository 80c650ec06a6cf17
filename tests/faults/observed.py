"""What an observer of a ledger sees, in one comparable value: every event as decided (its
position, stream, version and bytes, but not the instant it was recorded) and every document
the methodology's views answer. Two ledgers that give equal values are in the same state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from api.services.queries import MethodologyQueries
from ledger import codec
from ledger.ledger import Ledger
from tests.records import EDITIONS, run

SCORES = ["100", "92", "80", "70", "no-start", "40", "30", "T"]
SECRET_KEY = "sk-or-v1-" + "f00d" * 16
"""A run's model key that its log carries (so the redaction appends events); never stored."""


def many_runs(folder: Path, count: int) -> Path:
    """A JSON-lines file of the editions and `count` runs over sets of three, some with a log
    that holds their model key and some with a recording that cannot be shown (withheld, the
    run repeated), so a run gives from three to about ten events."""
    (folder / "run.log").write_text("$ make\nok\n")
    (folder / "keyed.log").write_text(f"$ export KEY={SECRET_KEY}\nok\n")
    (folder / "run.cast").write_text(
        '{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "ok"]\n'
    )
    (folder / "broken.cast").write_text("not a recording\n")
    records = list(EDITIONS)
    for i in range(count):
        record = run(f"r-{i:06d}", f"octo/p{i // 9}", f"agent-{i // 3 % 3}", SCORES[i % 8])
        if i % 5 == 1:
            record["evidence"]["log"] = "keyed.log"
            record["model_key"] = SECRET_KEY
        if i % 11 == 2:
            record["evidence"]["cast"] = "broken.cast"
        records.append(record)
    path = folder / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def events(ledger: Ledger) -> list[tuple[int, str, int, bytes]]:
    """Every event as decided: position, stream, version and the event's own bytes."""
    return [
        (
            row.position,
            row.stream,
            row.version,
            codec.encode_json(codec.decode(row.canonical).event),
        )
        for row in ledger.rows()
    ]


def documents(ledger: Ledger) -> dict[str, Any]:
    """Every methodology document, the leaderboard of each cycle, every run's page and every
    tenth project's (a project's page folds every run of the ledger), as the API answers
    them."""
    queries = MethodologyQueries(ledger)
    state = queries.state()
    answered: dict[str, Any] = {
        "methodology": queries.methodology(),
        "editions": queries.editions(),
        "cycles": queries.cycles(),
        "projects": queries.projects(),
        "sources": queries.sources(),
    }
    for cycle in {r.event.cycle for r in state.runs.values()}:
        answered[f"leaderboard {cycle}"] = queries.leaderboard(cycle)
    for project in sorted({r.event.project.id for r in state.runs.values()})[::10]:
        answered[f"project {project}"] = queries.project(project)
    for run_id in state.runs:
        answered[f"run {run_id}"] = queries.run(run_id)
    return msgspec.to_builtins(answered)  # type: ignore[no-any-return]


def observed(ledger: Ledger) -> tuple[list[tuple[int, str, int, bytes]], dict[str, Any]]:
    return events(ledger), documents(ledger)
