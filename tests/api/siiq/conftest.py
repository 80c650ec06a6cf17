"""SI-IQ's updates end to end: the six sources served over real HTTP on 127.0.0.1 (Epoch AI's
export synthesised so it calibrates, the others the real files of reference/data), the
cross-check stand-in over real HTTP, a ledger on SQLite and on PostgreSQL, and time injected:
each `hour()` moves the clock, fetches every source and runs `siiq update`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from adapters.sources.config import SourcesConfig
from adapters.sources.github import GitHubBases
from api.http import create_app
from api.services.siiq_publication import SiteCheck
from api.services.siiq_update import UpdateReport, update_siiq
from api.services.sources import fetch_sources
from api.wiring import Argusic, Settings
from domain.events import DomainEvent
from domain.events.operators import ApprovePublication, OperatorAction
from ledger.ledger import Ledger
from tests.publishing import action_desk, owner
from tests.reference import DATA
from tests.siiq_epoch_synthetic import SyntheticExport
from tests.sources_server import SourceServer, serving

ZIP = "epoch/benchmark_data.zip"
FILES = {
    "aider": ["aider/polyglot_leaderboard.yml"],
    "bfcl": ["bfcl/data_overall.csv"],
    "arena": ["lmarena/leaderboard-text.json"],
    "litellm": ["litellm/model_prices_and_context_window.json"],
}
START = datetime(2026, 11, 2, 0, 0, tzinfo=UTC)


def openrouter_export(day: str) -> bytes:
    rows = [{"date": day, "model_permaslug": "openai/gpt-5", "total_tokens": "402030405060"}]
    meta = {"as_of": f"{day}T02:00:00Z", "start_date": day, "end_date": day, "version": "v1"}
    return json.dumps({"data": rows, "meta": meta}).encode()


def publish_openrouter(server: SourceServer, day: str) -> None:
    import hashlib

    body = openrouter_export(day)
    server.put(f"openrouter/rankings-daily/{day}.json", body)
    sha = hashlib.sha256(body).hexdigest()
    files = [{"date": day, "url": f"rankings-daily/{day}.json", "sha256": sha}]
    server.put("openrouter/manifest.json", json.dumps({"files": files}).encode())


class World:
    def __init__(
        self, ledger: Ledger, settings: Settings, server: SourceServer, checker: CrossCheckStandIn
    ) -> None:
        self.ledger = ledger
        self.settings = settings
        self.server = server
        self.stand_in = checker
        self.export = SyntheticExport()
        self.now = START
        self.argusic = Argusic(settings, ledger)
        self.argusic.clock = lambda: self.now
        sources = {name: [server.url(p) for p in paths] for name, paths in FILES.items()}
        sources["epoch"] = [server.url(ZIP)]
        sources["openrouter"] = [server.url("openrouter/manifest.json")]
        self.config = SourcesConfig(
            sources, GitHubBases(server.url("github-api"), server.url("github-raw"))
        )
        self.serve_export()
        self.client = TestClient(create_app(self.argusic))
        self.client.__enter__()
        self.site: SiteCheck | None = None
        """The pages' check before each publication (none unless a test sets one)."""

    def serve_export(self) -> None:
        """Serve the export as it is now (a new version of the file)."""
        self.server.put(ZIP, self.export.zip(), "application/zip")

    def fetch(self) -> None:
        with self.argusic.source_reader(self.config) as reader:
            fetch_sources(self.ledger, reader, self.config.sources)

    def update(self, checker: bool = True) -> UpdateReport:
        if not checker:
            return update_siiq(self.ledger, None, self.now, self.site)
        with ChatCrossChecker(self.stand_in.url, "other-model", "token", "Checker Lab") as client:
            return update_siiq(self.ledger, client, self.now, self.site)

    def hour(self, hours: float = 1, checker: bool = True) -> UpdateReport:
        """Move the clock, fetch every source, run the update; an operator then approves the
        head for the public (methodology section 1), so the HTTP API shows what was published."""
        self.now += timedelta(hours=hours)
        self.fetch()
        report = self.update(checker)
        self.approve()
        return report

    def approve(self) -> None:
        self.sign(ApprovePublication(position=self.ledger.size()))

    def events(self, kind: type, after: int = 0) -> list[Any]:
        return [r.event for r in self.ledger.events(after) if isinstance(r.event, kind)]

    def get(self, path: str) -> Any:
        response = self.client.get(path, headers={"Accept": "application/json"})
        assert response.status_code == 200, response.text
        return response.json() if path.endswith(".json") else response.content

    def status(self) -> dict[str, Any]:
        return self.get("/status.json")

    def index(self) -> dict[str, Any]:
        return self.get("/data/index.json")

    def scores(self) -> dict[tuple[str, str], float]:
        """The published inputs of /data/index.json."""
        return {
            (r["model"], r["benchmark"]): r["score"]
            for m in self.index()["models"]
            for r in m["results"]
        }

    def sign(self, action: OperatorAction) -> list[DomainEvent]:
        desk, home = action_desk(self.ledger), self.settings.home
        if not desk.reader.latest().authority.operators:
            desk.init_owner(home, "tester")
        before = self.ledger.size()
        desk.act(owner(self.ledger, home), action)
        return [r.event for r in self.ledger.events(before)]

    def close(self) -> None:
        self.client.__exit__(None, None, None)


@pytest.fixture
def world(ledger: Ledger, settings: Settings) -> Iterator[World]:
    stand_in = CrossCheckStandIn().start()
    with serving() as server:
        for paths in FILES.values():
            for path in paths:
                server.put(path, (DATA / path).read_bytes())
        publish_openrouter(server, "2026-11-01")
        made = World(ledger, settings, server, stand_in)
        try:
            yield made
        finally:
            made.close()
            stand_in.stop()
