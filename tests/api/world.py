"""A methodology world for end-to-end tests: a ledger with the editions in, records ingested
from files, the views read back."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from adapters.artifacts import FileArtifactStore
from api.services.ingest import ingest
from api.services.operators import ActionReport, operator_signer, read_action
from api.services.reader import ProjectionReader
from domain.state.methodology import Methodology
from ledger.ledger import Ledger
from projections.methodology import MethodologyProjection
from projections.views.leaderboard import leaderboard_view
from projections.views.project import project_view
from tests.publishing import action_desk
from tests.records import EDITIONS, write

OWNER = "rita"


class World:
    """A ledger with the editions in (the tests' own, or `editions`), and a way to ingest
    records and read the views."""

    def __init__(
        self, ledger: Ledger, folder: Path, editions: list[dict[str, Any]] = EDITIONS
    ) -> None:
        self.ledger, self.folder = ledger, folder
        self.store = FileArtifactStore(folder / "home" / "artifacts")  # ARGUSIC_HOME
        self.files = 0
        self.ingest(editions)

    def ingest(self, records: list[dict[str, Any]]) -> None:
        self.files += 1
        path = write(self.folder, f"records-{self.files}.jsonl", records)
        self.last_report = ingest(self.ledger, [path], self.store)

    def reads(self) -> ProjectionReader[Methodology]:
        return ProjectionReader(self.ledger, MethodologyProjection())

    def leaderboard(self, as_of: int | None = None) -> list[dict[str, Any]]:
        """The rows' figures; the runs behind them are `leaderboard_projects` (and the sponsor
        beside them is `leaderboard_rows`')."""
        return [
            {k: v for k, v in row.items() if k not in ("projects", "sponsor")}
            for row in self.leaderboard_rows(as_of)
        ]

    def leaderboard_projects(self, agent: str) -> list[dict[str, Any]]:
        """Every project `agent` attempted in the cycle, its middle or status, its runs."""
        (row,) = [r for r in self.leaderboard_rows() if r["agent"] == agent]
        projects: list[dict[str, Any]] = row["projects"]
        return projects

    def leaderboard_rows(self, as_of: int | None = None) -> list[dict[str, Any]]:
        view = self.reads().answer("lb", partial(leaderboard_view, cycle="2026-09"), as_of)
        rows: list[dict[str, Any]] = msgspec.to_builtins(view)["rows"]
        return rows

    def project(self, project_id: str) -> Any:
        return self.reads().answer("p", partial(project_view, project_id=project_id))

    def act(self, action: dict[str, Any], signer: str = OWNER) -> ActionReport:
        """An operator's signed action (the owner, `rita`, made on first use)."""
        home, desk = self.folder / "home", action_desk(self.ledger)
        if not desk.reader.latest().authority.operators:
            desk.init_owner(home, OWNER)
        key = operator_signer(home, signer)
        return desk.act(key, read_action(msgspec.json.encode(action)))

    def publish(self) -> None:
        """The owner approves everything recorded so far for the public."""
        self.act({"action": "approve_publication", "position": self.ledger.size()})


def review(project: str, finding: str, note: str = "") -> dict[str, Any]:
    return {
        "action": "review",
        "project": project,
        "cycle": "2026-09",
        "finding": finding,
        "note": note,
    }
