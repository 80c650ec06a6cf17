"""SI-IQ updates speed (SI-IQ section 8): a day of hourly updates over six sources served from a
local HTTP server, with the cross-check stand-in over HTTP, on a SQLite ledger. Each hour: one
fetch round of every source and `siiq update` (guards, cross-check, publication check,
publication). The day holds the first publication and calibration (400 values checked), small
changes every hour, other sources changing every third hour, a held value confirmed by a later
snapshot, and one benchmark revision moved in one step with its recalibration. The raw baseline
is the same day of plain GETs of the same files (no condition, no parse, no ledger).

    python scripts/bench_siiq_updates.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from adapters.sources.config import SourcesConfig
from adapters.sources.github import GitHubBases
from api.http import site_check
from api.services.siiq_update import UpdateReport, update_siiq
from api.services.sources import fetch_sources
from api.wiring import Argusic, Settings, init
from domain.events import BenchmarkUnfrozen, CalibrationAccepted, HoldConfirmed, ValueHeld
from tests.siiq_epoch_synthetic import SyntheticExport
from tests.sources_server import DATA, SourceServer, serving

HOURS = 24
ZIP = "epoch/benchmark_data.zip"
FILES = {
    "aider": "aider/polyglot_leaderboard.yml",
    "bfcl": "bfcl/data_overall.csv",
    "arena": "lmarena/leaderboard-text.json",
    "litellm": "litellm/model_prices_and_context_window.json",
    "openrouter": "openrouter/rankings.json",
}
START = datetime(2026, 11, 2, tzinfo=UTC)


def serve_openrouter(server: SourceServer, day: int) -> None:
    import hashlib  # noqa: PLC0415
    import json  # noqa: PLC0415

    rows = [{"date": f"2026-11-{day:02d}", "model_permaslug": "v/m", "total_tokens": "10"}]
    body = json.dumps({"data": rows, "meta": {"as_of": f"2026-11-{day:02d}T02:00:00Z"}}).encode()
    server.put(f"openrouter/{day}.json", body)
    entry = {"date": f"2026-11-{day:02d}", "url": f"{day}.json"}
    entry["sha256"] = hashlib.sha256(body).hexdigest()
    server.put("openrouter/manifest.json", json.dumps({"files": [entry]}).encode())


def scenario(hour: int, export: SyntheticExport, server: SourceServer) -> None:
    """What changes at the sources before `hour`'s fetch."""
    small = ("Model F", "math_level_5")
    export.scores[small] = round(export.scores[small] + 0.001, 4)
    if hour == 3:
        export.scores["GPT-5", "hle"] = round(export.scores["GPT-5", "hle"] + 0.2, 4)
    if hour == 5:
        for model in sorted(m for m, b in export.scores if b == "terminal_bench")[:20]:
            key = (model, "terminal_bench")
            export.scores[key] = round(export.scores[key] + 0.03, 4)
    server.put(ZIP, export.zip(), "application/zip")
    if hour % 3 == 0:
        for name, path in FILES.items():
            if name != "openrouter":
                server.put(path, (DATA / path).read_bytes() + b"\n" * (hour + 1))
        serve_openrouter(server, 1 + hour // 3)


def day(base: Path) -> tuple[list[float], list[UpdateReport], Argusic]:
    settings = Settings(
        database_url=f"sqlite:///{base / 'ledger.db'}", home=base / "home", log_format=None
    )
    init(settings)
    argusic = Argusic.open(settings)
    export = SyntheticExport()
    stand_in = CrossCheckStandIn().start()
    times, reports = [], []
    with serving() as server:
        for path in FILES.values():
            if not path.startswith("openrouter"):
                server.put(path, (DATA / path).read_bytes())
        serve_openrouter(server, 1)
        sources = {name: [server.url(p)] for name, p in FILES.items()}
        sources["openrouter"] = [server.url("openrouter/manifest.json")]
        sources["epoch"] = [server.url(ZIP)]
        config = SourcesConfig(sources, GitHubBases(server.url("gh"), server.url("raw")))
        now = START
        argusic.clock = lambda: now
        site = site_check(argusic)
        for hour in range(HOURS):
            scenario(hour, export, server)
            now = START + timedelta(hours=hour)
            started = time.perf_counter()
            with argusic.source_reader(config) as reader:
                fetch_sources(argusic.ledger, reader, config.sources)
            with ChatCrossChecker(stand_in.url, "other-model", "", "Checker Lab") as checker:
                reports.append(update_siiq(argusic.ledger, checker, now, site))
            times.append(time.perf_counter() - started)
        baseline = raw_day(server, sources)
    stand_in.stop()
    times.append(baseline)
    return times, reports, argusic


def raw_day(server: SourceServer, sources: dict[str, list[str]]) -> float:
    """The same day of plain GETs of every configured file (the manifest, not its dated file)."""
    del server
    started = time.perf_counter()
    with httpx.Client() as client:
        for _ in range(HOURS):
            for urls in sources.values():
                for url in urls:
                    client.get(url).raise_for_status()
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        times, reports, argusic = day(Path(tmp))
        baseline = times.pop()
        events = [r.event for r in argusic.ledger.events()]
        held = sum(isinstance(e, ValueHeld) for e in events)
        confirmed = sum(isinstance(e, HoldConfirmed) for e in events)
        revisions = sum(isinstance(e, BenchmarkUnfrozen) for e in events)
        calibrations = [e.calibration.version for e in events if isinstance(e, CalibrationAccepted)]
        published = sum(r.published for r in reports)
        total = sum(times)
        print(f"a day of {HOURS} hourly updates over 6 sources: {total:.2f} s")
        print(f"  first hour (400 values checked, calibration): {times[0]:.2f} s")
        rest = times[1:]
        print(f"  other hours: median {statistics.median(rest):.3f} s, max {max(rest):.3f} s")
        print(
            f"  {published} values published, {held} held, {confirmed} confirmed, "
            f"{revisions} revision moved, calibrations {calibrations}, "
            f"{argusic.ledger.size()} events"
        )
        print(f"  raw baseline (plain GETs of the same files, a day): {baseline:.2f} s")
        print(f"  ratio: {total / baseline:.1f}x")
        argusic.close()


if __name__ == "__main__":
    main()
