"""SI-IQ sources speed: one round of conditional fetches of six unchanged sources (each answered
304) from a local HTTP server, and a full parse of Epoch AI's export, each against reading the
same bytes from disk.

    python scripts/bench_sources.py
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import FileArtifactStore
from adapters.sources import epoch
from adapters.sources.github import CommitResolver
from adapters.sources.http import HttpFetcher
from adapters.sources.reader import SourceReader
from api.services.sources import fetch_sources
from api.wiring import Settings, init
from tests.reference import DATA, EPOCH_APR
from tests.sources_server import epoch_zip, serving

ROUNDS = 20
FILES = {
    "epoch": ("epoch/benchmark_data.zip", None),
    "aider": ("aider/polyglot_leaderboard.yml", DATA / "aider/polyglot_leaderboard.yml"),
    "bfcl": ("bfcl/data_overall.csv", DATA / "bfcl/data_overall.csv"),
    "arena": ("lmarena/leaderboard-text.json", DATA / "lmarena/leaderboard-text.json"),
    "litellm": (
        "litellm/model_prices_and_context_window.json",
        DATA / "litellm/model_prices_and_context_window.json",
    ),
}


def best(work: Callable[[], object], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def openrouter_files() -> tuple[bytes, bytes]:
    rows = [
        {"date": "2026-11-30", "model_permaslug": f"v/model-{i}", "total_tokens": str(10**9 + i)}
        for i in range(50)
    ]
    dated = json.dumps({"data": rows, "meta": {"as_of": "2026-11-30T02:00:00Z"}}).encode()
    entry = {"date": "2026-11-30", "url": "2026-11-30.json", "bytes": len(dated)}
    entry["sha256"] = hashlib.sha256(dated).hexdigest()
    return json.dumps({"files": [entry]}).encode(), dated


def main() -> None:
    zipped = epoch_zip(EPOCH_APR)
    manifest, dated = openrouter_files()
    with tempfile.TemporaryDirectory() as tmp, serving() as server:
        folder = Path(tmp)
        (folder / "benchmark_data.zip").write_bytes(zipped)
        on_disk = [folder / "benchmark_data.zip", *(p for _, p in FILES.values() if p)]
        server.put(FILES["epoch"][0], zipped)
        for path, local in list(FILES.values())[1:]:
            server.put(path, local.read_bytes() if local else b"")
        server.put("openrouter/manifest.json", manifest)
        server.put("openrouter/2026-11-30.json", dated)
        addresses = {s: server.url(p) for s, (p, _) in FILES.items()}
        addresses["openrouter"] = server.url("openrouter/manifest.json")
        with HttpFetcher() as fetcher:
            archive = FileArtifactStore(folder / "archive")
            clock = lambda: datetime.now(UTC)  # noqa: E731
            reader = SourceReader(fetcher, CommitResolver(fetcher), archive, clock)
            first = {s: reader.read(s, a, None, None, None) for s, a in addresses.items()}
            held = {s: (a.etag, a.last_modified, a.sha256) for s, a in first.items()}

            def round_of_six() -> None:
                for source, address in addresses.items():
                    answer = reader.read(source, address, *held[source])
                    assert answer.not_modified, (source, answer.failure)

            fetch = best(round_of_six)
            disk = best(lambda: [p.read_bytes() for p in on_disk])
            settings = Settings(f"sqlite:///{tmp}/ledger.db", folder / "home", "json")
            ledger, _ = init(settings)
            config = {s: [a] for s, a in addresses.items()}
            fetch_sources(ledger, reader, config)
            use_case = best(lambda: fetch_sources(ledger, reader, config))
            ledger.close()
        parse = best(lambda: epoch.parse("benchmark_data.zip", zipped), 10)
        read_zip = best((folder / "benchmark_data.zip").read_bytes, 10)
    tables = epoch.parse("benchmark_data.zip", zipped)
    rows = sum(len(t.rows) for t in tables)
    print("| work | seconds | baseline: the same bytes read from disk | ratio |")
    print("|---|---:|---:|---:|")
    fetched = "conditional fetch of 6 unchanged sources (6 x 304, validators sent)"
    print(f"| {fetched} | {fetch:.4f} | {disk:.4f} | {fetch / disk:.0f} |")
    whole = "`sources fetch` of the same on a SQLite ledger (state read, 6 x 304, nothing recorded)"
    print(f"| {whole} | {use_case:.4f} | {disk:.4f} | {use_case / disk:.0f} |")
    parsed = f"full parse of Epoch's export ({len(tables)} tables, {rows:,} rows)"
    print(f"| {parsed} | {parse:.4f} | {read_zip:.5f} | {parse / read_zip:.0f} |")


if __name__ == "__main__":
    main()
