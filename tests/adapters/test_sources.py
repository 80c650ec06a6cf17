"""The source adapters on the real files of reference/data served over real HTTP (127.0.0.1):
rows parsed as published, conditional requests, and each failure named."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from adapters.sources import PARSERS, openrouter
from adapters.sources.config import load_sources_config
from adapters.sources.github import CommitResolver, GitHubBases, github_file
from adapters.sources.http import HttpFetcher, Limits
from domain.errors import SetupError
from domain.siiq.source_format import (
    DigestMismatch,
    HtmlPage,
    MissingColumn,
    SourceFormatError,
    TooLarge,
    TruncatedArchive,
    Unreachable,
)
from tests.reference import DATA, EPOCH_APR
from tests.sources_server import OPENROUTER_FIXTURE, SourceServer, epoch_zip, github_raw, serving

REAL = {
    "aider": ["aider/polyglot_leaderboard.yml", "aider/edit_leaderboard.yml"],
    "bfcl": ["bfcl/data_overall.csv", "bfcl/data_live.csv"],
    "arena": ["lmarena/leaderboard-text.json", "lmarena/leaderboard-vision.json"],
    "litellm": ["litellm/model_prices_and_context_window.json"],
}


@pytest.fixture
def server() -> Iterator[SourceServer]:
    with serving() as running:
        yield running


@pytest.fixture
def fetcher() -> Iterator[HttpFetcher]:
    with HttpFetcher(Limits(connect_seconds=2, read_seconds=2, total_seconds=5)) as client:
        yield client


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_epoch_zip_over_http_rows_as_published(server: SourceServer, fetcher: HttpFetcher) -> None:
    url = server.put("epoch/benchmark_data.zip", epoch_zip(EPOCH_APR), "application/zip")
    got = fetcher.get(url)
    assert got.status == 200
    assert got.body is not None
    tables = {t.name: t for t in PARSERS["epoch"]("benchmark_data.zip", got.body)}
    on_disk = sorted(p.relative_to(EPOCH_APR).as_posix() for p in EPOCH_APR.rglob("*.csv"))
    assert sorted(tables) == on_disk
    for name in on_disk:
        data = (EPOCH_APR / name).read_bytes()
        assert tables[name].rows == csv_rows(data), name
        assert tables[name].sha256 == hashlib.sha256(data).hexdigest()
    assert sum(len(t.rows) for t in tables.values()) == 4390  # as reference/data counts them
    # Spaces in a cell are kept in the row; names are trimmed only where they are read.
    versions = [r["Model version"] for r in tables["mmlu_external.csv"].rows]
    assert "Llama-2-70b-hf " in versions


def test_epoch_single_csv(server: SourceServer, fetcher: HttpFetcher) -> None:
    data = (EPOCH_APR / "gpqa_diamond.csv").read_bytes()
    got = fetcher.get(server.put("epoch/gpqa_diamond.csv", data, "text/csv"))
    assert got.body is not None
    [table] = PARSERS["epoch"]("gpqa_diamond.csv", got.body)
    assert table.rows == csv_rows(data)


@pytest.mark.parametrize(("source", "path"), [(s, p) for s, ps in REAL.items() for p in ps])
def test_each_adapter_over_http_rows_as_published(
    server: SourceServer, fetcher: HttpFetcher, source: str, path: str
) -> None:
    data = (DATA / path).read_bytes()
    url = server.put(path, data)
    first = fetcher.get(url)
    assert first.status == 200
    assert first.body == data
    tables = PARSERS[source](path, first.body)
    if path.endswith(".csv"):
        assert tables[0].rows == csv_rows(data)
    elif path.endswith(".yml"):
        assert tables[0].rows == yaml.load(data, Loader=yaml.BaseLoader)
    elif source == "arena":
        document = json.loads(data)
        assert [t.name.split("#")[1] for t in tables] == sorted(document)
        for table in tables:
            category = document[table.name.split("#")[1]]
            assert {r.pop("model"): r for r in table.rows} == category
    else:
        document = json.loads(data)
        rows = {r["model"]: {k: v for k, v in r.items() if k != "model"} for r in tables[0].rows}
        assert rows == {
            k: v for k, v in document.items() if isinstance(v, dict) and k != "sample_spec"
        }
    # A second fetch with the validators is answered 304, with no body.
    again = fetcher.get(url, first.validators)
    assert (again.status, again.body) == (304, None)
    assert server.statuses(path) == [200, 304]
    # A changed file is a 200 with the new bytes and new validators.
    server.change(path, data.replace(b"\n", b"\r\n", 1))
    changed = fetcher.get(url, first.validators)
    assert changed.status == 200
    assert changed.validators != first.validators


def test_if_modified_since_alone(server: SourceServer, fetcher: HttpFetcher) -> None:
    url = server.put("bfcl/data_overall.csv", (DATA / "bfcl/data_overall.csv").read_bytes())
    first = fetcher.get(url)
    assert first.validators.last_modified
    again = fetcher.get(url, first.validators._replace(etag=None))
    assert again.status == 304


def test_a_truncated_zip_is_named(server: SourceServer, fetcher: HttpFetcher) -> None:
    server.put("epoch/benchmark_data.zip", epoch_zip(EPOCH_APR))
    server.truncate("epoch/benchmark_data.zip")
    body = fetcher.get(server.url("epoch/benchmark_data.zip")).body
    with pytest.raises(TruncatedArchive, match="not a complete zip archive"):
        PARSERS["epoch"]("benchmark_data.zip", body or b"")


def test_a_renamed_score_column_is_named(server: SourceServer, fetcher: HttpFetcher) -> None:
    renamed = {
        "gpqa_diamond.csv": (EPOCH_APR / "gpqa_diamond.csv")
        .read_bytes()
        .replace(b"Best score (across scorers)", b"Best score", 1)
    }
    server.put("epoch/benchmark_data.zip", epoch_zip(EPOCH_APR, renamed))
    body = fetcher.get(server.url("epoch/benchmark_data.zip")).body or b""
    # Epoch AI's score column is a benchmark's definition: the file is read, and the update
    # freezes that benchmark alone (section 8; tests/api/siiq/test_siiq_definitions.py).
    [gpqa] = [
        t for t in PARSERS["epoch"]("benchmark_data.zip", body) if t.name == "gpqa_diamond.csv"
    ]
    assert "Best score" in gpqa.columns
    assert "Best score (across scorers)" not in gpqa.columns
    server.put(
        "aider/polyglot_leaderboard.yml", (DATA / "aider/polyglot_leaderboard.yml").read_bytes()
    )
    server.change(
        "aider/polyglot_leaderboard.yml",
        (DATA / "aider/polyglot_leaderboard.yml")
        .read_bytes()
        .replace(b"pass_rate_2:", b"pass_rate_two:"),
    )
    body = fetcher.get(server.url("aider/polyglot_leaderboard.yml")).body or b""
    with pytest.raises(MissingColumn, match="'pass_rate_2'"):
        PARSERS["aider"]("polyglot_leaderboard.yml", body)
    server.put("bfcl/data_overall.csv", (DATA / "bfcl/data_overall.csv").read_bytes())
    server.reformat("bfcl/data_overall.csv", b"Overall Acc", b"Overall Accuracy")
    body = fetcher.get(server.url("bfcl/data_overall.csv")).body or b""
    with pytest.raises(MissingColumn, match="'Overall Acc'"):
        PARSERS["bfcl"]("data_overall.csv", body)


def test_renamed_columns_of_the_json_sources_are_named() -> None:
    arena = (DATA / "lmarena/leaderboard-vision.json").read_bytes().replace(b'"rating"', b'"score"')
    with pytest.raises(MissingColumn, match="'rating'"):
        PARSERS["arena"]("leaderboard-vision.json", arena)
    prices = (DATA / "litellm/model_prices_and_context_window.json").read_bytes()
    with pytest.raises(MissingColumn, match="'input_cost_per_token'"):
        PARSERS["litellm"](
            "prices.json", prices.replace(b'"input_cost_per_token"', b'"input_cost"')
        )
    with pytest.raises(MissingColumn, match="'total_tokens'"):
        openrouter.parse(
            "x.json", openrouter_export("2026-11-30").replace(b"total_tokens", b"tokens")
        )


@pytest.mark.parametrize("source", sorted(PARSERS))
def test_an_html_page_served_with_200_is_named(
    server: SourceServer, fetcher: HttpFetcher, source: str
) -> None:
    server.html_page("file")
    got = fetcher.get(server.url("file"))
    assert got.status == 200
    with pytest.raises(HtmlPage, match="an HTML page was served"):
        PARSERS[source]("file.json" if source != "epoch" else "benchmark_data.zip", got.body or b"")


def test_a_shrunk_csv_still_parses_and_a_cut_record_is_refused(
    server: SourceServer, fetcher: HttpFetcher
) -> None:
    data = (DATA / "bfcl/data_overall.csv").read_bytes()
    server.put("bfcl/data_overall.csv", data)
    server.shrink("bfcl/data_overall.csv", 0.5)
    body = fetcher.get(server.url("bfcl/data_overall.csv")).body or b""
    assert len(PARSERS["bfcl"]("data_overall.csv", body)[0].rows) == 54
    with pytest.raises(SourceFormatError, match="record 2 has 4 cells, the header has 36"):
        PARSERS["bfcl"]("data_overall.csv", data[: data.index(b"\n", data.index(b"\n") + 1) + 60])


def test_failures_of_the_fetch_are_named(server: SourceServer) -> None:
    with HttpFetcher(
        Limits(connect_seconds=1, read_seconds=0.3, total_seconds=1, max_bytes=1000)
    ) as fetcher:
        server.put("big", b"x" * 5000)
        with pytest.raises(TooLarge, match="more than 1000"):
            fetcher.get(server.url("big"))
        server.put("down", b"data")
        server.fail("down", 503)
        with pytest.raises(Unreachable, match="HTTP status 503"):
            fetcher.get(server.url("down"))
        with pytest.raises(Unreachable, match="HTTP status 404"):
            fetcher.get(server.url("missing"))
        server.put("slow", b"data")
        server.slow("slow", 1.0)
        with pytest.raises(Unreachable, match="Timeout"):
            fetcher.get(server.url("slow"))


def openrouter_export(day: str) -> bytes:
    rows = [
        {
            "date": day,
            "model_permaslug": "anthropic/claude-sonnet-4.5",
            "total_tokens": "512345678901",
        },
        {"date": day, "model_permaslug": "openai/gpt-5-2025-08-07", "total_tokens": "402030405060"},
        {"date": day, "model_permaslug": "other", "total_tokens": "99000000000"},
    ]
    meta = {"as_of": f"{day}T02:00:00Z", "start_date": day, "end_date": day, "version": "v1"}
    return json.dumps({"data": rows, "meta": meta}, indent=2).encode()


def test_openrouter_manifest_and_dated_file(server: SourceServer, fetcher: HttpFetcher) -> None:
    old, new = openrouter_export("2026-11-29"), openrouter_export("2026-11-30")
    server.put("or/rankings-daily/2026-11-29.json", old)
    server.put("or/rankings-daily/2026-11-30.json", new)
    files = [
        {
            "date": "2026-11-29",
            "url": "rankings-daily/2026-11-29.json",
            "sha256": hashlib.sha256(old).hexdigest(),
            "bytes": len(old),
        },
        {
            "date": "2026-11-30",
            "url": "rankings-daily/2026-11-30.json",
            "sha256": hashlib.sha256(new).hexdigest(),
            "bytes": len(new),
        },
    ]
    manifest_url = server.put("or/manifest.json", json.dumps({"files": files}).encode())
    manifest = fetcher.get(manifest_url)
    current = openrouter.newest_file(manifest_url, manifest.body or b"")
    assert current.url == server.url("or/rankings-daily/2026-11-30.json")
    body = fetcher.get(current.url).body or b""
    openrouter.verify(current, body)
    table, meta = openrouter.parse("2026-11-30.json", body)
    assert table.rows == json.loads(new)["data"]
    assert meta.rows == [json.loads(new)["meta"]]
    with pytest.raises(DigestMismatch, match="is not the manifest's"):
        openrouter.verify(current, old)
    with pytest.raises(SourceFormatError, match="is not a decimal string"):
        openrouter.parse("x.json", new.replace(b'"512345678901"', b"512345678901"))
    with pytest.raises(SourceFormatError, match="no 'files' list"):
        openrouter.newest_file(manifest_url, b"{}")


def test_github_files_are_read_at_an_exact_commit(
    server: SourceServer, fetcher: HttpFetcher
) -> None:
    commit = "5dc9490bb35f9729ef2c95d00a19ccd30c26339c"
    data = (DATA / "aider/polyglot_leaderboard.yml").read_bytes()
    path = "aider/website/_data/polyglot_leaderboard.yml"
    github_raw(server, "Aider-AI/aider", commit, path, data)
    server.commits[("Aider-AI/aider", "main")] = commit
    bases = GitHubBases(api=server.url("github-api"), raw=server.url("github-raw"))
    resolver = CommitResolver(fetcher, bases)
    configured = f"https://github.com/Aider-AI/aider/blob/main/{path}"
    address = resolver.address(configured)
    assert address == server.url(f"github-raw/Aider-AI/aider/{commit}/{path}")
    assert fetcher.get(address).body == data
    pinned = f"https://raw.githubusercontent.com/Aider-AI/aider/{commit}/{path}"
    assert resolver.address(pinned) == address  # already exact: no API call
    assert github_file("https://epoch.ai/data/benchmark_data.zip") is None
    with pytest.raises(Unreachable, match="commits/gone: HTTP status 404"):
        resolver.address(f"https://github.com/Aider-AI/aider/blob/gone/{path}")


def test_the_sources_configuration(tmp_path: Path) -> None:
    shipped = load_sources_config(Path(__file__).resolve().parents[2] / "config" / "sources.toml")
    assert sorted(shipped.sources) == sorted(PARSERS)
    bad = tmp_path / "sources.toml"
    bad.write_text('[epochh]\nurls = ["x"]\n')
    with pytest.raises(SetupError, match=r"unknown source \[epochh\]"):
        load_sources_config(bad)
    bad.write_text("[epoch]\nurls = []\n")
    with pytest.raises(SetupError, match=r"\[epoch\] needs urls"):
        load_sources_config(bad)
    with pytest.raises(SetupError, match="sources configuration"):
        load_sources_config(tmp_path / "missing.toml")
    good = tmp_path / "good.toml"
    good.write_text(
        '[github]\napi = "http://127.0.0.1:1/api"\n[limits]\nmax_bytes = 10\n[bfcl]\nurls = ["http://x/a.csv"]\n'
    )
    loaded = load_sources_config(good)
    assert loaded.sources == {"bfcl": ["http://x/a.csv"]}
    assert loaded.limits.max_bytes == 10
    assert loaded.github.api == "http://127.0.0.1:1/api"


def test_openrouter_benchmarks_dataset_beside_rankings_daily() -> None:
    """ARCHITECTURE.md, Wave 3 contract: manifest entries name their dataset; a `benchmarks`
    file is a row per model and hosting provider, each number of its kind."""
    fixture = (OPENROUTER_FIXTURE / "2026-11-30.json").read_bytes()
    daily = openrouter_export("2026-12-01")
    files = [
        {"date": "2026-12-01", "url": "rankings-daily/2026-12-01.json", "sha256": "a" * 64},
        {
            "date": "2026-11-30",
            "dataset": "benchmarks",
            "url": "b/2026-11-30.json",
            "sha256": "b" * 64,
        },
        {
            "date": "2026-11-29",
            "dataset": "benchmarks",
            "url": "b/2026-11-29.json",
            "sha256": "c" * 64,
        },
    ]
    manifest = json.dumps({"files": files}).encode()
    base = "https://openrouter.ai/api/v1/datasets/exports/manifest.json"
    assert openrouter.newest_file(base, manifest).url.endswith("rankings-daily/2026-12-01.json")
    newest = openrouter.newest_file(base, manifest, "benchmarks")
    assert (newest.url, newest.dataset) == (
        base.replace("manifest.json", "b/2026-11-30.json"),
        "benchmarks",
    )
    assert openrouter.dataset_of(base + "#benchmarks") == (base, "benchmarks")
    assert openrouter.dataset_of(base) == (base, "rankings-daily")
    with pytest.raises(SourceFormatError, match="unknown dataset 'usage'"):
        openrouter.dataset_of(base + "#usage")
    with pytest.raises(SourceFormatError, match="no benchmarks file"):
        openrouter.newest_file(base, json.dumps({"files": files[:1]}).encode(), "benchmarks")
    table, meta = openrouter.parse("2026-11-30.json", fixture, "benchmarks")
    assert table.name == "benchmarks"  # the same table every day
    assert len(table.rows) == 17
    assert table.rows[0]["model_permaslug"] == "openai/gpt-5-2025-08-07"
    assert "fixture" in meta.rows[0]
    assert openrouter.parse("2026-12-01.json", daily)[0].name == "2026-12-01.json"
    with pytest.raises(MissingColumn, match="'questions_attempted'"):
        openrouter.parse(
            "x.json", fixture.replace(b'"questions_attempted"', b'"attempted"'), "benchmarks"
        )
    with pytest.raises(
        SourceFormatError, match=r"row 1 \('openai/gpt-5-2025-08-07', 'OpenAI'\): score"
    ):
        openrouter.parse(
            "x.json", fixture.replace(b'"score": 0.8502', b'"score": 85.02'), "benchmarks"
        )
    with pytest.raises(SourceFormatError, match="runs '3' is not a whole number"):
        openrouter.parse("x.json", fixture.replace(b'"runs": 3', b'"runs": "3"', 1), "benchmarks")
