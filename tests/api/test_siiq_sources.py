"""SI-IQ's sources end to end, on SQLite and PostgreSQL, over real HTTP on 127.0.0.1: every
adapter on the real files of reference/data, conditional requests, archived snapshots, bad
input recorded with the last good data kept, and the evidence file and the sources' status
replayed byte for byte as of any position (SI-IQ sections 1, 8 and 10)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from litestar.testing import TestClient

from adapters.artifacts import FileArtifactStore
from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from adapters.sources.config import SourcesConfig
from adapters.sources.github import GitHubBases
from api.http import create_app
from api.services.operators import operator_signer
from api.services.queries import SiiqQueries
from api.services.siiq_update import UpdateReport, update_siiq
from api.services.sources import FetchRow, SourcesQueries, fetch_sources
from api.wiring import Argusic, Settings
from domain.events import SourceSnapshotRecorded, SourceTableRecorded, value_key
from domain.events.operators import ApproveAlias
from ledger.ledger import Ledger
from projections.runner import ReadModel
from projections.siiq_sources import SiiqSourcesProjection, evidence_jsonl, status_document
from tests.publishing import action_desk, publish
from tests.reference import DATA, EPOCH_APR, EPOCH_JAN
from tests.sources_server import SourceServer, epoch_zip, openrouter_benchmarks_fixture, serving

ZIP = "epoch/benchmark_data.zip"
FILES = {
    "aider": ["aider/polyglot_leaderboard.yml"],
    "bfcl": ["bfcl/data_overall.csv", "bfcl/data_live.csv"],
    "arena": ["lmarena/leaderboard-text.json"],
    "litellm": ["litellm/model_prices_and_context_window.json"],
}


def openrouter_export(day: str) -> bytes:
    rows = [
        {"date": day, "model_permaslug": "openai/gpt-5-2025-08-07", "total_tokens": "402030405060"},
        {"date": day, "model_permaslug": "other", "total_tokens": "99000000000"},
    ]
    meta = {"as_of": f"{day}T02:00:00Z", "start_date": day, "end_date": day, "version": "v1"}
    return json.dumps({"data": rows, "meta": meta}).encode()


def publish_openrouter(server: SourceServer, *days: str, digest_of: bytes | None = None) -> None:
    files = []
    for day in days:
        body = openrouter_export(day)
        server.put(f"openrouter/rankings-daily/{day}.json", body)
        sha = hashlib.sha256(digest_of or body).hexdigest()
        files.append({"date": day, "url": f"rankings-daily/{day}.json", "sha256": sha})
    server.put("openrouter/manifest.json", json.dumps({"files": files}).encode())


@pytest.fixture
def server() -> Iterator[SourceServer]:
    with serving() as running:
        running.put(ZIP, epoch_zip(EPOCH_JAN), "application/zip")
        for paths in FILES.values():
            for path in paths:
                running.put(path, (DATA / path).read_bytes())
        publish_openrouter(running, "2026-11-29")
        yield running


@pytest.fixture
def config(server: SourceServer) -> SourcesConfig:
    sources = {name: [server.url(p) for p in paths] for name, paths in FILES.items()}
    sources["epoch"] = [server.url(ZIP)]
    sources["openrouter"] = [server.url("openrouter/manifest.json")]
    return SourcesConfig(sources, GitHubBases(server.url("github-api"), server.url("github-raw")))


class Round:
    """Fetch rounds as `argusic sources fetch` runs them, on one ledger."""

    def __init__(self, ledger: Ledger, settings: Settings, config: SourcesConfig) -> None:
        self.argusic = Argusic(settings, ledger)
        self.config = config

    def __call__(self, only: str | None = None) -> dict[str, FetchRow]:
        with self.argusic.source_reader(self.config) as reader:
            report = fetch_sources(self.argusic.ledger, reader, self.config.sources, only)
        return {row.url: row for row in report.sources}

    def statuses(self, only: str | None = None) -> dict[str, str]:
        return {url: row.status for url, row in self(only).items()}


@pytest.fixture
def fetch(ledger: Ledger, settings: Settings, config: SourcesConfig) -> Round:
    return Round(ledger, settings, config)


def snapshots(ledger: Ledger) -> list[SourceSnapshotRecorded]:
    return [r.event for r in ledger.events() if isinstance(r.event, SourceSnapshotRecorded)]


def test_each_adapter_on_the_real_files_over_http_is_recorded_once(
    ledger: Ledger, settings: Settings, server: SourceServer, fetch: Round
) -> None:
    first = fetch.statuses()
    assert set(first.values()) == {"new"}
    assert len(first) == 7  # epoch, aider, 2 bfcl, arena, litellm, openrouter
    recorded = {s.source: s for s in snapshots(ledger)}
    assert sorted(recorded) == ["aider", "arena", "bfcl", "epoch", "litellm", "openrouter"]
    assert all(s.ok for s in recorded.values())
    assert sum(t.rows for t in recorded["epoch"].tables) == 3728  # the January export
    assert recorded["aider"].tables[0].rows == 69
    assert recorded["arena"].tables[0].name == "leaderboard-text.json#chinese"
    assert recorded["openrouter"].url == server.url("openrouter/rankings-daily/2026-11-29.json")
    # Every file received is archived under its SHA-256, as it came.
    archive = FileArtifactStore(settings.home / "sources")
    for snapshot in snapshots(ledger):
        assert hashlib.sha256(b"".join(archive.read(snapshot.sha256))).hexdigest() == (
            snapshot.sha256
        )
    size = ledger.size()
    # A second fetch is answered 304 everywhere and records nothing.
    assert set(fetch.statuses().values()) == {"unchanged"}
    assert ledger.size() == size
    assert server.statuses(ZIP) == [200, 304]
    assert server.statuses("openrouter/manifest.json") == [200, 304]
    # A changed file is recorded once, with only its tables whose bytes changed.
    server.change(ZIP, epoch_zip(EPOCH_APR))
    changed = fetch.statuses()
    assert changed[server.url(ZIP)] == "new"
    assert [s for s in changed.values() if s == "new"] == ["new"]
    tables = [r.event for r in ledger.events(size) if isinstance(r.event, SourceTableRecorded)]
    assert "gpqa_diamond.csv" in {t.table for t in tables}
    assert "lambada_external.csv" not in {t.table for t in tables}  # not read by the index
    after = ledger.size()
    assert set(fetch.statuses().values()) == {"unchanged"}
    assert ledger.size() == after
    # Every other source's changed file is recorded once too.
    for paths in FILES.values():
        for path in paths:
            server.change(path, (DATA / path).read_bytes() + b"\n")
    publish_openrouter(server, "2026-11-29", "2026-11-30")
    before = len(snapshots(ledger))
    changed = fetch.statuses()
    assert sorted(s for s in changed.values() if s == "new") == ["new"] * 6
    assert len(snapshots(ledger)) == before + 6
    assert set(fetch.statuses().values()) == {"unchanged"}
    assert len(snapshots(ledger)) == before + 6


def test_a_changed_openrouter_manifest_and_a_wrong_digest(
    ledger: Ledger, server: SourceServer, fetch: Round
) -> None:
    fetch("openrouter")
    publish_openrouter(server, "2026-11-29", "2026-11-30")
    [row] = fetch("openrouter").values()
    assert (row.status, row.url) == ("new", server.url("openrouter/rankings-daily/2026-11-30.json"))
    publish_openrouter(server, "2026-11-29", "2026-11-30", "2026-12-01", digest_of=b"other")
    [row] = fetch("openrouter").values()
    assert row.status == "failed"
    assert row.reason is not None
    assert "is not the manifest's" in row.reason
    [status] = SourcesQueries(ledger).status().sources
    assert status.failure is not None
    assert status.last_snapshot is not None
    assert status.last_snapshot.url.endswith("2026-11-30.json")  # the last good file stays


def test_github_files_are_recorded_at_their_exact_commit(
    ledger: Ledger, settings: Settings, server: SourceServer
) -> None:
    path = "aider/website/_data/polyglot_leaderboard.yml"
    commit = "5dc9490bb35f9729ef2c95d00a19ccd30c26339c"
    server.put(
        f"github-raw/Aider-AI/aider/{commit}/{path}", (DATA / FILES["aider"][0]).read_bytes()
    )
    server.commits[("Aider-AI/aider", "main")] = commit
    config = SourcesConfig(
        {"aider": [f"https://github.com/Aider-AI/aider/blob/main/{path}"]},
        GitHubBases(server.url("github-api"), server.url("github-raw")),
    )
    Round(ledger, settings, config)()
    [snapshot] = snapshots(ledger)
    assert snapshot.url == server.url(f"github-raw/Aider-AI/aider/{commit}/{path}")
    assert snapshot.address == f"https://github.com/Aider-AI/aider/blob/main/{path}"


def bad_inputs(server: SourceServer) -> dict[str, tuple[object, str]]:
    # A renamed score column freezes that benchmark alone (section 8); the version column is
    # what the file cannot do without.
    renamed = (EPOCH_APR / "gpqa_diamond.csv").read_bytes().replace(b"Model version", b"Model", 1)
    return {
        "truncated": (lambda: server.truncate(ZIP), "not a complete zip archive"),
        "column": (
            lambda: server.change(ZIP, epoch_zip(EPOCH_APR, {"gpqa_diamond.csv": renamed})),
            "gpqa_diamond.csv: no column 'Model version'",
        ),
        "html": (lambda: server.html_page(ZIP), "an HTML page was served instead of"),
    }


@pytest.mark.parametrize("kind", ["truncated", "column", "html"])
def test_bad_input_is_a_recorded_failure_and_the_last_good_data_is_kept(
    ledger: Ledger, server: SourceServer, fetch: Round, kind: str
) -> None:
    server.change(ZIP, epoch_zip(EPOCH_APR))
    fetch("epoch")
    queries = SourcesQueries(ledger)
    good_evidence, good_status = queries.evidence(), queries.status().sources
    break_it, message = bad_inputs(server)[kind]
    break_it()  # type: ignore[operator]
    [row] = fetch("epoch").values()
    assert row.status == "failed"
    assert row.reason is not None
    assert message in row.reason
    failure = snapshots(ledger)[-1]
    assert (failure.ok, failure.failure_kind, failure.tables) == (False, kind, [])
    [epoch] = queries.status().sources
    assert not epoch.ok
    assert epoch.failure is not None
    assert message in epoch.failure
    assert epoch.last_snapshot == good_status[0].last_snapshot  # nothing lost
    assert queries.evidence() == good_evidence
    size = ledger.size()
    fetch("epoch")  # the same failure again is not recorded twice
    assert ledger.size() == size
    server.change(ZIP, epoch_zip(EPOCH_APR))  # the good file is back
    [row] = fetch("epoch").values()
    assert row.status == "unchanged"
    [epoch] = queries.status().sources
    assert (epoch.ok, epoch.failure) == (True, None)


def test_replay_reproduces_the_evidence_and_the_sources_status_at_every_position(
    ledger: Ledger, server: SourceServer, fetch: Round, settings: Settings
) -> None:
    live: dict[int, tuple[bytes, bytes]] = {}
    queries = SourcesQueries(ledger)

    def seen() -> None:
        status = msgspec.json.encode(queries.status())
        live[ledger.size()] = (queries.evidence(), status)

    seen()
    fetch()
    seen()
    server.change(ZIP, epoch_zip(EPOCH_APR))
    fetch()
    seen()
    server.html_page(ZIP)
    server.fail("bfcl/data_live.csv", 503)
    fetch()
    desk = action_desk(ledger)
    desk.init_owner(settings.home, "olga")
    seen()
    before = ledger.size()
    alias = ApproveAlias(
        source="epoch",
        name="qwen/qwen3-235b-a22b-thinking-2507",
        group="Qwen3-235B-A22B-Thinking (Jul 2025)",
        justification="the Thinking-2507 weights",
    )
    desk.act(operator_signer(settings.home, "olga"), alias)  # a person's signed approval
    seen()
    for position, (evidence, status) in live.items():
        assert queries.evidence(position) == evidence, position
        assert msgspec.json.encode(queries.status(position)) == status, position
    # Folded afresh from position 0, stored, and read back: the same bytes.
    _, rebuilt = ReadModel(ledger, SiiqSourcesProjection()).rebuild()
    head = ledger.size()
    assert evidence_jsonl(rebuilt) == live[head][0]
    assert msgspec.json.encode(status_document(rebuilt, head)) == live[head][1]
    fresh = SourcesQueries(ledger)  # a new reader decodes the stored model
    assert fresh.evidence() == live[head][0]
    # Every position in between answers too (the same bytes as a fold up to it).
    for position in range(head + 1):
        fold_model = ReadModel(ledger, SiiqSourcesProjection()).as_of(position)
        assert queries.evidence(position) == evidence_jsonl(fold_model)
    assert b"qwen/qwen3-235b-a22b-thinking-2507" in live[head][0]
    assert b"qwen/qwen3-235b-a22b-thinking-2507" not in live[before][0]


@contextmanager
def client(ledger: Ledger, settings: Settings) -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The public API, with everything recorded so far approved for it."""
    publish(ledger, settings.home)
    with TestClient(app=create_app(Argusic(settings, ledger))) as c:
        yield c


def test_the_evidence_file_and_the_status_over_http(
    ledger: Ledger, settings: Settings, server: SourceServer, fetch: Round
) -> None:
    fetch()
    position = publish(ledger, settings.home)  # an earlier approval, to read as of
    server.change(ZIP, epoch_zip(EPOCH_APR))
    fetch()
    with client(ledger, settings) as http:
        evidence = http.get("/data/evidence.jsonl")
        assert evidence.status_code == 200
        assert evidence.headers["content-type"].startswith("application/jsonl")
        lines = [json.loads(line) for line in evidence.text.splitlines()]
        assert len(lines) > 1000
        assert set(lines[0]) >= {"model", "benchmark", "value", "row", "url", "sha256"}
        assert {x["url"] for x in lines} == {server.url(ZIP), server.url("bfcl/data_live.csv")}
        earlier = http.get(f"/data/evidence.jsonl?as_of={position}")
        assert earlier.text != evidence.text
        assert earlier.content == SourcesQueries(ledger).evidence(position)
        status = http.get("/status.json").json()
        assert {s["source"] for s in status["sources"]} == set(FILES) | {"epoch", "openrouter"}
        assert {k for s in status["sources"] for k in s} >= {
            "source",
            "ok",
            "failure",
            "last_snapshot",
        }
        assert {a["source"] for a in status["attributions"]} == set(FILES) | {"epoch", "openrouter"}
        assert http.get(f"/status.json?as_of={position}").json()["as_of"] == position
        assert http.get("/status.json?as_of=999999").status_code == 404
        assert http.get(f"/status.json?as_of={position + 1}").status_code == 404  # not approved


def test_the_cli_fetches_updates_and_reports(
    cli_env: dict[str, str], server: SourceServer, config: SourcesConfig, tmp_path: Path
) -> None:
    from tests.conftest import argusic

    toml = "\n".join(
        f"[{name}]\nurls = {json.dumps(urls)}" for name, urls in config.sources.items()
    )
    (tmp_path / "sources.toml").write_text(toml + "\n")
    env = {**cli_env, "ARGUSIC_SOURCES_CONFIG": str(tmp_path / "sources.toml")}
    assert argusic(env, "init").returncode == 0
    done = argusic(env, "sources", "fetch", "--source", "epoch", "--json")
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)["sources"]
    assert set(row) == {"source", "url", "status", "sha256", "reason"}
    assert (row["source"], row["status"], row["reason"]) == ("epoch", "new", None)
    server.change(ZIP, epoch_zip(EPOCH_APR))
    assert (
        json.loads(argusic(env, "sources", "fetch", "--json").stdout)["sources"][0]["status"]
        == "new"
    )
    unknown = argusic(env, "sources", "fetch", "--source", "nope", "--json")
    assert unknown.returncode == 1
    assert "not configured" in json.loads(unknown.stdout)["error"]
    assert argusic(env, "sources", "--json").returncode == 0  # the methodology table still answers
    halted = json.loads(argusic(env, "siiq", "update", "--json").stdout)
    assert halted["halted"] is True  # no cross-check service configured (SI-IQ section 8)
    assert "ARGUSIC_CROSSCHECK_URL" in halted["reason"]
    stand_in = CrossCheckStandIn().start()
    env["ARGUSIC_CROSSCHECK_URL"] = stand_in.url
    env["ARGUSIC_CROSSCHECK_FAMILY"] = "Checker Lab"
    try:
        update = json.loads(argusic(env, "siiq", "update", "--json").stdout)
    finally:
        stand_in.stop()
    assert update["halted"] is False
    assert update["published"] == stand_in.calls > 0
    assert update["calibrated"] is True
    calibration = update["calibration"]
    assert calibration["accepted"] is False
    assert calibration["reason"].startswith("reference models ")
    for member in ("Gemma 3 12B", "Gemma 3 4B", "Qwen3-14B", "gpt-oss-20b"):
        assert member in calibration["reason"]
    # BFCL's live table gives DeepSeek-V3.2-Exp the fourth result Epoch's tables lack.
    assert "DeepSeek-V3.2-Exp" not in calibration["reason"]
    stand_in = CrossCheckStandIn().start()
    env["ARGUSIC_CROSSCHECK_URL"] = stand_in.url
    env["ARGUSIC_CROSSCHECK_FAMILY"] = "Checker Lab"
    try:
        again = json.loads(argusic(env, "siiq", "update", "--json").stdout)
    finally:
        stand_in.stop()
    assert again["calibrated"] is True  # still none in force: the first calibration is retried
    assert again["published"] == stand_in.calls == 0  # nothing new to check
    holds = json.loads(argusic(env, "siiq", "holds", "--json").stdout)
    assert holds == {"holds": [], "notifications": [holds["notifications"][0]]}
    assert holds["notifications"][0]["subject"] == "update"  # the halt above was told
    check = argusic(env, "siiq", "publish-check", "--json")
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["publishable"] is True
    report = argusic(env, "siiq", "report")
    assert report.returncode == 0, report.stderr
    assert "## Calibration: rejected" in report.stdout
    assert "| Qwen3-235B-A22B-Thinking (Jul 2025) |" in report.stdout
    data = json.loads(argusic(env, "siiq", "report", "--json").stdout)
    members = {m["member"]: m for m in data["reference"]}
    assert members["Qwen3-235B-A22B-Thinking (Jul 2025)"]["results"] >= 4
    assert members["Gemma 3 4B"]["results"] == 0


BFCL_TABLES = ["bfcl/data_non_live.csv", "bfcl/data_live.csv", "bfcl/data_multi_turn.csv"]


def test_openrouter_gpqa_and_bfcl_rows_are_evidence_from_their_own_files(
    ledger: Ledger, settings: Settings, server: SourceServer
) -> None:
    """SI-IQ sections 1 and 8: OpenRouter's GPQA Diamond run (its median provider per model)
    and BFCL's own tables feed the index, each row named by the file it came from."""
    server.change(ZIP, epoch_zip(EPOCH_APR))
    bfcl = [server.put(p, (DATA / p).read_bytes()) for p in BFCL_TABLES]
    openrouter = openrouter_benchmarks_fixture(server)
    config = SourcesConfig({"epoch": [server.url(ZIP)], "bfcl": bfcl, "openrouter": [openrouter]})
    rows = Round(ledger, settings, config)()
    assert {row.status for row in rows.values()} == {"new"}
    served = {
        server.url(p): hashlib.sha256(server.files[p].body).hexdigest()
        for p in [*BFCL_TABLES, ZIP, "fixture/openrouter/benchmarks/2026-11-30.json"]
    }
    lines = [json.loads(line) for line in SourcesQueries(ledger).evidence().splitlines()]
    for line in lines:  # every line names the file its row was read from, by its own digest
        assert served[line["url"]] == line["sha256"], line
    by_source = {s: [x for x in lines if x["source"] == s] for s in ("bfcl", "openrouter")}
    assert {x["url"] for x in by_source["bfcl"]} == set(bfcl)
    assert {x["benchmark"] for x in by_source["bfcl"]} == {
        "bfcl_non_live",
        "bfcl_live",
        "bfcl_multi_turn",
    }
    qwen = [x for x in by_source["bfcl"] if x["model"] == "Qwen3-14B"]
    assert {x["row"]["Model"] for x in qwen} == {"Qwen3-14B (FC)", "Qwen3-14B (Prompt)"}
    assert all(
        x["value"] == float(x["row"]["Live Overall Acc"].rstrip("%")) / 100
        for x in qwen
        if x["benchmark"] == "bfcl_live"
    )
    # OpenRouter: one row per model, the median covering provider's, exactly as published.
    gpqa = {x["model"]: x for x in by_source["openrouter"]}
    assert {m: (x["row"]["provider"], x["value"]) for m, x in gpqa.items()} == {
        "GPT-5": ("OpenAI", 0.8502),  # the developer's own hosting
        "gpt-oss-120b": ("Groq", 0.7727),  # Together covered 180 of 198 a run: left out
        "DeepSeek-R1 (May 2025)": ("DeepSeek", 0.7626),
        "Gemini 2.5 Pro (Jun 2025)": ("Google Vertex", 0.8384),  # the lower of two own
        "Llama 4 Maverick": ("DeepInfra", 0.6616),  # the lower middle of four
    }
    assert {x["benchmark"] for x in gpqa.values()} == {"openrouter_gpqa_diamond"}
    assert {x["url"] for x in gpqa.values()} == {
        server.url("fixture/openrouter/benchmarks/2026-11-30.json")
    }
    intake = SourcesQueries(ledger).intake()
    assert intake is not None
    waiting = {(m.source, m.name): m.reason for m in intake.waiting}
    assert ("openrouter", "anthropic/claude-4.5-sonnet-20250929") in waiting
    assert ("bfcl", "Gemma-3-4b-it (Prompt)") in waiting  # Epoch has no such group or version
    assert intake.left_out["no provider covered 95% of the questions"] == 1  # Mistral Medium 3
    definitions = {b.benchmark: b for b in intake.benchmarks}
    assert definitions["openrouter_gpqa_diamond"].family == definitions["gpqa_diamond"].family
    assert (definitions["bfcl_live"].n, definitions["bfcl_live"].n_kind) == (2251, "exact")
    # A maintainer's signed alias brings a waiting name in; until then it counts nowhere.
    desk = action_desk(ledger)
    desk.init_owner(settings.home, "olga")
    alias = ApproveAlias(
        source="openrouter",
        name="anthropic/claude-4.5-sonnet-20250929",
        group="Claude Sonnet 4.5",
        justification="OpenRouter's permaslug of claude-sonnet-4-5-20250929",
    )
    desk.act(operator_signer(settings.home, "olga"), alias)
    after = [json.loads(line) for line in SourcesQueries(ledger).evidence().splitlines()]
    sonnet = [x for x in after if x["source"] == "openrouter" and x["model"] == "Claude Sonnet 4.5"]
    assert [x["row"]["provider"] for x in sonnet] == ["Anthropic"]
    # Checked and published by an update, the public file still names each row's own file.
    stand_in = CrossCheckStandIn().start()
    try:
        with ChatCrossChecker(stand_in.url, "stand-in", "", "Checker Lab") as checker:
            update = update_siiq(ledger, checker, datetime(2026, 12, 1, 6, tzinfo=UTC))
    finally:
        stand_in.stop()
    assert not update.halted
    assert update.published > 0
    with client(ledger, settings) as http:
        public = [json.loads(x) for x in http.get("/data/evidence.jsonl").text.splitlines()]
    assert {x["source"] for x in public} == {"epoch", "bfcl", "openrouter"}
    for line in public:
        assert served[line["url"]] == line["sha256"], line
    assert {x["row"]["provider"] for x in public if x["source"] == "openrouter"} == {
        "OpenAI",
        "Groq",
        "DeepSeek",
        "Google Vertex",
        "DeepInfra",
        "Anthropic",
    }


def test_one_manifest_two_datasets_each_its_own_snapshot(
    ledger: Ledger, settings: Settings, server: SourceServer
) -> None:
    """Section 8: an address per dataset of OpenRouter's manifest, each reading the newest file
    of its own dataset, fetched once and then answered by a conditional request."""
    benchmarks = openrouter_benchmarks_fixture(server)
    daily = openrouter_export("2026-11-29")
    server.put("fixture/openrouter/rankings-daily/2026-11-29.json", daily)
    manifest = json.loads(server.files["fixture/openrouter/manifest.json"].body)
    manifest["files"].append(
        {
            "date": "2026-11-29",
            "dataset": "rankings-daily",
            "url": "rankings-daily/2026-11-29.json",
            "sha256": hashlib.sha256(daily).hexdigest(),
        }
    )
    server.change("fixture/openrouter/manifest.json", json.dumps(manifest).encode())
    plain = benchmarks.removesuffix("#benchmarks")
    fetch = Round(ledger, settings, SourcesConfig({"openrouter": [plain, benchmarks]}))
    first = fetch()
    assert {u: r.status for u, r in first.items()} == {
        server.url("fixture/openrouter/rankings-daily/2026-11-29.json"): "new",
        server.url("fixture/openrouter/benchmarks/2026-11-30.json"): "new",
    }
    tables = {s.address: [t.name for t in s.tables] for s in snapshots(ledger)}
    assert tables == {
        plain: ["2026-11-29.json", "2026-11-29.json#meta"],
        benchmarks: ["benchmarks", "benchmarks#meta"],
    }
    assert {r.status for r in fetch().values()} == {"unchanged"}
    assert server.statuses("fixture/openrouter/benchmarks/2026-11-30.json") == [200]


def test_a_move_over_ten_points_is_confirmed_by_openrouters_run_of_the_same_questions(
    ledger: Ledger, settings: Settings, server: SourceServer
) -> None:
    """Section 8: a number that moved more than 10 points is held unless "la otra ejecución de
    GPQA Diamond lo confirma": OpenRouter's run (its median provider) within 0.02 of it."""
    real = (EPOCH_APR / "gpqa_diamond.csv").read_bytes()
    oss = b"openai/gpt-oss-120b_high,0.7575757575757576,0.7575757575757576,"
    qwen = b"qwen3-max-2025-09-23,0.726010101010101,0.726010101010101,"
    assert oss in real
    assert qwen in real
    lowered = real.replace(oss, b"openai/gpt-oss-120b_high,0.6,0.6,").replace(
        qwen, b"qwen3-max-2025-09-23,0.6,0.6,"
    )
    server.change(ZIP, epoch_zip(EPOCH_APR, {"gpqa_diamond.csv": lowered}))
    openrouter = openrouter_benchmarks_fixture(server)
    fetch = Round(
        ledger, settings, SourcesConfig({"epoch": [server.url(ZIP)], "openrouter": [openrouter]})
    )
    stand_in = CrossCheckStandIn().start()

    def hour(at: datetime) -> UpdateReport:
        fetch()
        with ChatCrossChecker(stand_in.url, "stand-in", "", "Checker Lab") as checker:
            return update_siiq(ledger, checker, at)

    def published(model: str) -> float:
        values = SiiqQueries(ledger).reader.latest().guards.values
        return values[value_key(model, "gpqa_diamond")].result.score

    try:
        hour(datetime(2026, 12, 1, 7, tzinfo=UTC))
        assert (published("gpt-oss-120b"), published("Qwen3-Max")) == (0.6, 0.6)
        server.change(ZIP, epoch_zip(EPOCH_APR))  # both back up by more than 10 points
        report = hour(datetime(2026, 12, 1, 8, tzinfo=UTC))
    finally:
        stand_in.stop()
    # gpt-oss-120b's 0.7576 is within 0.02 of OpenRouter's 0.7727 (Groq, the median provider):
    # published at once; Qwen3-Max has no other run and is held.
    assert published("gpt-oss-120b") == pytest.approx(0.7575757575757576)
    assert published("Qwen3-Max") == 0.6
    assert [h.split("@")[0] for h in report.held] == [value_key("Qwen3-Max", "gpqa_diamond")]


def test_a_held_bfcl_value_is_confirmed_only_by_a_later_bfcl_file(
    ledger: Ledger, settings: Settings, server: SourceServer
) -> None:
    """Section 8: a held value is confirmed by a later snapshot of its own source; Epoch AI's
    update, which does not carry the number, confirms nothing of BFCL's."""
    live = "bfcl/data_live.csv"
    real = (DATA / live).read_bytes()
    lowered = real.replace(b"Qwen3-14B (FC),80.01%", b"Qwen3-14B (FC),50.01%").replace(
        b"Qwen3-14B (Prompt),79.35%", b"Qwen3-14B (Prompt),49.35%"
    )
    server.change(ZIP, epoch_zip(EPOCH_APR))
    bfcl = [server.put(p, (DATA / p).read_bytes()) for p in BFCL_TABLES]
    fetch = Round(ledger, settings, SourcesConfig({"epoch": [server.url(ZIP)], "bfcl": bfcl}))
    stand_in = CrossCheckStandIn().start()
    start = datetime(2026, 12, 1, 7, tzinfo=UTC)

    def hour(hours: int) -> UpdateReport:
        fetch()
        with ChatCrossChecker(stand_in.url, "stand-in", "", "Checker Lab") as checker:
            return update_siiq(ledger, checker, start + timedelta(hours=hours))

    def published() -> float:
        values = SiiqQueries(ledger).reader.latest().guards.values
        return values[value_key("Qwen3-14B", "bfcl_live")].result.score

    try:
        hour(0)
        before = published()
        server.change(live, lowered)
        held = hour(1)
        assert [h.split("@")[0] for h in held.held] == [value_key("Qwen3-14B", "bfcl_live")]
        epoch_only = (EPOCH_APR / "gpqa_diamond.csv").read_bytes() + b"\n"
        server.change(ZIP, epoch_zip(EPOCH_APR, {"gpqa_diamond.csv": epoch_only}))
        assert hour(9).confirmed == []  # a later snapshot, of Epoch AI's: not BFCL's
        assert published() == before
        server.change(live, lowered.replace(b"Qwen3-32B (FC),82.01%", b"Qwen3-32B (FC),82.02%"))
        assert len(hour(17).confirmed) == 1  # BFCL's own later file shows it still
        assert published() == pytest.approx(0.5001)
    finally:
        stand_in.stop()
