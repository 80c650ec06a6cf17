"""Project pool speed: a `pool candidates` round over the 200 synthetic repositories of the
GitHub stand-in (first round: every answer a body to archive and judge; second round: every
answer a 304 to the ETag the candidates were recorded with), each beside plain GETs of the same
addresses with the same HTTP client, nothing archived, parsed or recorded.

    python scripts/bench_pool.py
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import FileArtifactStore
from adapters.github_api import ApiFailure, GitHubApi
from api.services.pool import fetch_candidates
from api.wiring import Settings, init
from domain.events import ApiAnswer
from ledger.ledger import Ledger
from scripts.bench_sources import best
from tests.github_stand_in import TODAY, GitHubStandIn, serving, synthetic

ROUNDS = 5
SINCE = TODAY - timedelta(days=60)
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, serving(GitHubStandIn(synthetic())) as github:
        folder = Path(tmp)
        addresses: list[str] = []

        def round_on(ledger: Ledger) -> int:
            @contextmanager
            def api(held: Mapping[str, ApiAnswer]) -> Iterator[GitHubApi]:
                with GitHubApi(github.url, FileArtifactStore(folder / "archive"), held=held) as a:
                    yield a
                    addresses[:] = [answer.url for answer in a.answers]

            known = set(github.repos)
            report = fetch_candidates(
                ledger, api, since=SINCE, now=NOW, failures=(ApiFailure,), known=known, excluded={}
            )
            return len(report.candidates)

        ledgers = itertools.count()

        def fresh_ledger() -> Ledger:
            database = f"sqlite:///{tmp}/ledger-{next(ledgers)}.db"
            return init(Settings(database, folder / "home", "json"))[0]

        first = best(lambda: round_on(fresh_ledger()), ROUNDS)
        candidates = round_on(ledger := fresh_ledger())
        again = best(lambda: round_on(ledger), ROUNDS)
        with httpx.Client() as client:
            plain = best(lambda: [client.get(url).content for url in addresses])
    requests = len(addresses)
    print("| work | seconds | baseline: plain GETs of the same addresses | ratio |")
    print("|---|---:|---:|---:|")
    whole = f"`pool candidates`, first round ({candidates} candidates, {requests} answers)"
    print(f"| {whole} | {first:.3f} | {plain:.3f} | {first / plain:.2f} |")
    repeat = "`pool candidates` again on the same ledger (every answer 304, recorded again)"
    print(f"| {repeat} | {again:.3f} | {plain:.3f} | {again / plain:.2f} |")


if __name__ == "__main__":
    main()
