"""A methodology world for end-to-end tests: a ledger with the editions in, records ingested
from files, the views read back."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from adapters.artifacts import FileArtifactStore
from api.services.ingest import ingest
from api.services.reader import ProjectionReader
from ledger.ledger import Ledger
from projections.methodology import Methodology, MethodologyProjection
from projections.views.leaderboard import leaderboard_view
from projections.views.project import project_view
from tests.records import EDITIONS, write


class World:
    """A ledger with the editions in, and a way to ingest records and read the views."""

    def __init__(self, ledger: Ledger, folder: Path) -> None:
        self.ledger, self.folder = ledger, folder
        self.store = FileArtifactStore(folder / "artifacts")
        self.files = 0
        self.ingest(EDITIONS)

    def ingest(self, records: list[dict[str, Any]]) -> None:
        self.files += 1
        path = write(self.folder, f"records-{self.files}.jsonl", records)
        self.last_report = ingest(self.ledger, [path], self.store)

    def reads(self) -> ProjectionReader[Methodology]:
        return ProjectionReader(self.ledger, MethodologyProjection())

    def leaderboard(self, as_of: int | None = None) -> list[dict[str, Any]]:
        view = self.reads().answer("lb", partial(leaderboard_view, cycle="2026-09"), as_of)
        rows: list[dict[str, Any]] = msgspec.to_builtins(view)["rows"]
        return rows

    def project(self, project_id: str) -> Any:
        return self.reads().answer("p", partial(project_view, project_id=project_id))


def review(project: str, finding: str, note: str = "") -> dict[str, Any]:
    return {
        "kind": "review",
        "project": project,
        "cycle": "2026-09",
        "finding": finding,
        "reviewer": "rita",
        "note": note,
    }
