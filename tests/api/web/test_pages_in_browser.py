"""The pages in a real browser (Debian's Chromium, driven by selenium): every page reached from
/ loads with no console error and no failed request and validates as HTML, axe-core finds no
serious or critical violation, nothing shifts, a phone needs no sideways scroll, the figures are
the JSON's, the recording plays, a withheld run says 451, the SI-IQ plot is drawn. One server
and one browser session for the whole module; screenshots land in `screenshots/`."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.artifacts import FileArtifactStore
from adapters.banners import banner_patterns
from api.services.ingest import ingest
from api.services.render import RenderAsked, render_run
from api.wiring import Argusic, Settings, init
from domain.events import SourceSnapshotRecorded, TableSummary
from tests.api.web.browser import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    Browser,
    Crawl,
    crawl,
    require_browser,
    validate,
)
from tests.conftest import ARGUSIC, load_bundled_demo
from tests.publishing import publish
from tests.records import run, write
from tests.servers import free_port, stop, wait_for

pytestmark = pytest.mark.slow

FAILED_START = "demo-012"
"""A demo run whose recording shows its start failing."""
QUOTED_DESCRIPTION = "A tiny tool \u2014 for tests \u2014"
QUOTED_FINAL_STATE = "Installed and started \u2014 the page answered \u2014"
ENVIRONMENT = {
    "image_digest": "sha256:" + "ab" * 32,
    "engine_version": "26.1.5",
    "network": "none",
    "limits": {
        "memory_bytes": 2048 << 20,
        "nano_cpus": 1_500_000_000,
        "pids": 512,
        "network": "none",
    },
}


def extra_records(folder: Path) -> Path:
    """Beside the demo: a run whose recording cannot be parsed (withheld) and one whose quoted
    texts carry em dashes."""
    (folder / "bad.cast").write_text("this is not an asciicast\n")
    # a cycle with no record, by agents with none: beside the demo's cycles
    withheld = run("test-withheld", "test/withheld", "test-agent-a", "100", cast="bad.cast")
    withheld["cycle"] = "2026-08"
    quoted = run("test-quoted", "test/quoted", "test-agent-b", "100", cycle="2026-08")
    quoted["project"]["description"] = QUOTED_DESCRIPTION
    quoted["report"] = {**quoted["report"], "final_state": QUOTED_FINAL_STATE}
    quoted |= ENVIRONMENT
    return write(folder, "extra.jsonl", [withheld, quoted])


def source_snapshots() -> list[SourceSnapshotRecorded]:
    """Two SI-IQ sources for the status page: one with its last good file, one failing."""
    at = datetime(2026, 11, 30, 12, tzinfo=UTC)
    table = TableSummary(name="results", sha256="c" * 64, rows=120, columns=["model", "score"])
    return [
        SourceSnapshotRecorded(
            source="epoch",
            address="epoch.zip",
            url="https://example.invalid/epoch.zip",
            sha256="a" * 64,
            size=2048,
            fetched_at=at,
            ok=True,
            tables=[table],
        ),
        SourceSnapshotRecorded(
            source="aider",
            address="aider.yml",
            url="https://example.invalid/aider.yml",
            sha256="",
            size=0,
            fetched_at=at,
            ok=False,
            failure="HTTP 503 from the source",
        ),
    ]


@dataclass
class Site:
    origin: str
    browser: Browser

    def json(self, path: str, **params: Any) -> Any:
        answer = httpx.get(self.origin + path, params=params, timeout=60)
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    require_browser()
    folder = tmp_path_factory.mktemp("site")
    settings = Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json")
    book, _ = init(settings)
    store = FileArtifactStore(settings.home / "artifacts")
    load_bundled_demo(settings, book)
    ingest(book, [extra_records(folder)], store, banner_patterns)
    book.append(book.next_versions(source_snapshots()))
    rendered = Argusic(settings, book, store=store)
    asked = RenderAsked(run_id=FAILED_START, format="gif", speed=4, captions=True)
    render_run(book, rendered.methodology, store, rendered.renderer, asked)  # its pages crawled
    publish(book, settings.home)  # the pages are the public's
    book.close()
    env = {
        "PATH": "/usr/bin:/bin",
        "ARGUSIC_DATABASE_URL": settings.database_url,
        "ARGUSIC_HOME": str(settings.home),
        "ARGUSIC_LOG_FORMAT": "json",
    }
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    with (folder / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [ARGUSIC, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            start_new_session=True,
            stdout=log,
            stderr=log,
        )
    browser = None
    try:
        wait_for(f"{origin}/healthz", server)
        browser = Browser(origin)
        yield Site(origin, browser)
    finally:
        if browser is not None:
            browser.close()
        stop(server)


@pytest.fixture(scope="module")
def crawled(site: Site) -> Crawl:
    return crawl(site.origin)


def top_model(site: Site) -> str:
    return str(site.json("/data/index.json")["models"][0]["slug"])


def page_kinds(site: Site) -> dict[str, str]:
    """One page of each kind, the cases that change what a page shows included."""
    return {
        "home": "/",
        "leaderboard": "/leaderboard?cycle=2026-09",
        "agents": "/agents?cycle=2026-10",
        "project": "/projects/demo/pixel-forge",
        "project-under-review": "/projects/demo/ghost-build",
        "project-quoted-text": "/projects/test/quoted",
        "run": "/runs/demo-001",
        "run-hugging-face-model": "/runs/demo-046",
        "run-invalid": "/runs/demo-061",
        "run-withheld": "/runs/test-withheld",
        "methodology": "/methodology",
        "editions": "/methodology/editions",
        "sources": "/methodology/sources",
        "siiq-index": "/siiq",
        "siiq-model": f"/siiq/models/{top_model(site)}",
        "siiq-model-unranked": "/siiq/models/demo-model-sparse-1",
        "siiq-status": "/status",
    }


def test_every_internal_link_from_home_resolves(site: Site, crawled: Crawl) -> None:
    assert crawled.broken == []
    assert set(page_kinds(site).values()) <= set(crawled.pages)
    assert "/static/player/asciinema-player.min.js" in crawled.resources
    assert len(crawled.pages) > 100


def test_every_page_validates_as_html(crawled: Crawl) -> None:
    assert validate(crawled.pages) == []


def test_every_page_loads_with_no_console_error_and_no_failed_request(
    site: Site, crawled: Crawl
) -> None:
    problems = []
    for path in sorted(crawled.pages):
        load = site.browser.open(path)
        outside = [u for u in load.requests if not u.startswith((site.origin, "data:"))]
        problems += [f"{path}: console: {m}" for m in load.console_errors]
        problems += [f"{path}: request: {r}" for r in load.failed_requests]
        problems += [f"{path}: fetched from outside: {u}" for u in outside]
    assert problems == []


def test_axe_finds_no_serious_or_critical_violation(site: Site) -> None:
    found = {}
    for width, height, mobile in (DESKTOP, PHONE):
        site.browser.emulate(width, height, mobile)
        for kind, path in page_kinds(site).items():
            site.browser.open(path)
            if violations := site.browser.axe():
                found[f"{kind} at {width}px"] = violations
    site.browser.emulate(*DESKTOP)
    assert found == {}


def test_nothing_shifts_a_phone_scrolls_only_down_and_screenshots_are_written(
    site: Site,
) -> None:
    shifts, overflow = {}, {}
    for label, (width, height, mobile) in (("desktop", DESKTOP), ("phone", PHONE)):
        site.browser.emulate(width, height, mobile)
        for kind, path in page_kinds(site).items():
            site.browser.open(path)
            if kind.startswith("run"):
                site.browser.script("return new Promise(r => setTimeout(r, 500))")  # the player
            if (shift := site.browser.layout_shift()) > 0.01:
                shifts[f"{kind} {label}"] = shift
            if (extra := site.browser.horizontal_overflow()) > 0:
                overflow[f"{kind} {label}"] = extra
            site.browser.screenshot(SCREENSHOTS / f"{kind}-{label}.png")
    site.browser.emulate(*DESKTOP)
    assert shifts == {}
    assert overflow == {}
    assert len(list(SCREENSHOTS.glob("*-desktop.png"))) >= len(page_kinds(site))


def cells(site: Site, table: str) -> list[dict[str, str]]:
    """Each row of a table: its data-field cells' data-value and text."""
    return site.browser.script(
        "return [...document.querySelectorAll(arguments[0] + ' tbody tr')].map(row =>"
        " Object.fromEntries([...row.querySelectorAll('[data-field]')].flatMap(c =>"
        " [[c.dataset.field, c.dataset.value], [c.dataset.field + ':text', c.innerText.trim()]])"
        ".concat([['agent', row.dataset.agent]])))",
        table,
    )


def test_the_leaderboard_shows_the_json_numbers(site: Site) -> None:
    # the home page shows the current (latest) cycle's leaderboard
    for path, cycle in (("/leaderboard?cycle=2026-09", "2026-09"), ("/", "2026-10")):
        board = site.json("/leaderboard", cycle=cycle)
        site.browser.open(path)
        shown = cells(site, "table.leaderboard")
        assert [r["agent"] for r in shown] == [r["agent"] for r in board["rows"]]
        for row, json_row in zip(shown, board["rows"], strict=True):
            score = json_row["score"]
            assert row["score"] == ("" if score is None else repr(score))
            assert row["score:text"] == ("no score" if score is None else f"{score:.1f}")
            assert float(row["pass_rate"]) == json_row["pass_rate"]
            assert row["pass_rate:text"] == f"{json_row['pass_rate']:.1%}"
            assert int(row["attempts"]) == json_row["attempts"]
            assert int(row["projects_counted"]) == json_row["projects_counted"]
            for excluded in json_row["excluded"]:
                assert excluded["project"] in row["excluded:text"]
    september = site.json("/leaderboard", cycle="2026-09")["rows"]
    scores = [r["score"] for r in september]
    assert scores == sorted(scores, reverse=True)  # by score, highest first


def served_cast(site: Site, run_id: str) -> tuple[str, float]:
    """The served recording's first output and its last event's time."""
    text = httpx.get(f"{site.origin}/runs/{run_id}/evidence/cast", timeout=60).text
    events = [json.loads(line) for line in text.splitlines()[1:] if line.strip()]
    output = [e for e in events if e[1] == "o"]
    return output[0][2], events[-1][0]


def test_the_run_page_plays_the_served_recording(site: Site) -> None:
    first_output, last_time = served_cast(site, "demo-001")
    site.browser.open("/runs/demo-001")
    state = site.browser.script(
        "const player = window.argusicPlayers[0];"
        "return new Promise(done => { const look = () => Promise.resolve(player.getDuration())"
        ".then(d => d ? done({duration: d, screen: document.querySelector('#player').innerText})"
        " : setTimeout(look, 100)); look(); })"
    )
    assert state["duration"] == pytest.approx(last_time, abs=1e-3)
    assert state["screen"].splitlines()[0].rstrip() == first_output.rstrip("\r\n")  # first frame
    ended = site.browser.script(
        "const player = window.argusicPlayers[0], screen = document.querySelector('#player');"
        "return new Promise(done => { player.addEventListener('ended', () => {"
        " const time = player.getCurrentTime(), start = Date.now();"
        " const look = () => screen.innerText.includes(arguments[0]) || Date.now() - start > 3000"
        " ? done({time, screen: screen.innerText}) : setTimeout(look, 50); look(); });"
        " player.play(); })",
        "decoded: 5 bytes, no errors",
    )
    assert ended["time"] == pytest.approx(last_time, abs=0.05)
    assert "decoded: 5 bytes, no errors" in ended["screen"]


def test_the_player_has_the_timelines_chapters_and_a_log_search_moves_it(site: Site) -> None:
    """Section 17 (issue 32, deliverable 4): the player's chapters are the timeline's marks,
    and a search of the log seeks the player to the match."""
    marks = site.json(f"/runs/{FAILED_START}")["timeline"]["marks"]
    _, duration = served_cast(site, FAILED_START)
    site.browser.open(f"/runs/{FAILED_START}")
    shown = site.browser.script(
        "const player = window.argusicPlayers[0];"
        "return new Promise(done => { const look = () => Promise.resolve(player.getDuration())"
        ".then(d => d ? done({at: player.getCurrentTime(), chapters: [...document"
        ".querySelectorAll('#player .ap-marker-container')].length}) : setTimeout(look, 100));"
        " look(); })"
    )
    times = sorted({mark["time"] for mark in marks if mark["time"] < duration})
    assert shown["chapters"] == len(times) > 0
    assert shown["at"] < 1  # the poster's frame, before the failure
    listed = site.browser.script(
        "return [...document.querySelectorAll('#chapters li')].map(li => li.dataset.kind)"
    )
    assert "failure" in listed
    failure = next(mark for mark in marks if mark["kind"] == "failure")
    moved = site.browser.script(
        "const player = window.argusicPlayers[0];"
        "document.getElementById('log-search-text').value = arguments[0];"
        "document.querySelector('#log-search button').click();"
        "return new Promise(done => { const start = Date.now(); const look = () =>"
        " Promise.resolve(player.getCurrentTime()).then(t => t > 1 || Date.now() - start > 5000"
        " ? done({at: t, said: document.getElementById('log-search-result').textContent})"
        " : setTimeout(look, 50)); look(); })",
        "ModuleNotFoundError",
    )
    assert moved["at"] == pytest.approx(failure["until"], abs=0.05)
    assert "Found at" in moved["said"]
    skipped = site.browser.script(
        "document.getElementById('skip-idle').click();"
        "return new Promise(done => { const start = Date.now(); const look = () =>"
        " Promise.resolve(window.argusicPlayers[0].getDuration()).then(d => d && d < arguments[0]"
        " || Date.now() - start > 5000 ? done(d) : setTimeout(look, 50)); look(); })",
        duration - 1,
    )
    assert skipped == pytest.approx(duration - (failure["time"] - 2), abs=0.05)  # pauses <= 2 s
    assert served_cast(site, FAILED_START)[1] == duration  # the recording is unchanged


def test_the_run_page_shows_the_environment_the_json_gives(site: Site) -> None:
    """Section 7 point 1 and 18: the run's environment, read back from the served page."""
    doc = site.json("/runs/test-quoted")
    site.browser.open("/runs/test-quoted")
    shown = site.browser.script(
        "return Object.fromEntries([...document.querySelectorAll('#environment + dl [data-field]')]"
        ".map(c => [c.dataset.field, [c.dataset.value || null, c.innerText.trim()]]))"
    )
    assert shown["image_digest"][1] == doc["image_digest"] == ENVIRONMENT["image_digest"]
    assert shown["engine_version"][1] == doc["engine_version"] == "26.1.5"
    assert float(shown["cpus"][0]) == doc["limits"]["nano_cpus"] / 1e9 == 1.5
    assert int(shown["memory"][0]) == doc["limits"]["memory_bytes"]
    assert shown["memory"][1] == "2048 MiB"
    assert int(shown["pids"][0]) == doc["limits"]["pids"] == 512
    assert shown["network"][1].startswith("none")
    site.browser.open("/projects/test/quoted")
    quote = site.browser.script("return document.querySelector('td.final-state q').innerText")
    assert quote == "Installed and started, the page answered."


def test_a_withheld_run_shows_the_451_notice(site: Site) -> None:
    site.browser.open("/runs/test-withheld")
    notice = site.browser.script("return document.querySelector('#withheld').innerText")
    assert "451" in notice
    assert "the recording cannot be parsed" in notice
    assert site.browser.script("return document.querySelectorAll('[data-cast]').length") == 0
    for kind in ("cast", "log"):
        answer = httpx.get(f"{site.origin}/runs/test-withheld/evidence/{kind}", timeout=60)
        assert answer.status_code == 451


def test_the_siiq_model_page_draws_its_per_benchmark_plot(site: Site) -> None:
    slug = top_model(site)
    page = site.json(f"/siiq/models/{slug}")
    site.browser.open(f"/siiq/models/{slug}")
    drawn = site.browser.script(
        "const img = document.querySelector('#benchmark-plot img');"
        "return {complete: img.complete, width: img.naturalWidth, src: img.src}"
    )
    assert drawn["complete"]
    assert drawn["width"] > 0
    prefix = "data:image/svg+xml;base64,"
    assert drawn["src"].startswith(prefix)  # drawn on the server, fetched from nowhere
    text = base64.b64decode(drawn["src"].removeprefix(prefix)).decode()
    for row in page["benchmarks"]:
        assert f">{row['benchmark']}<" in text


def test_the_siiq_model_page_draws_its_history_plot(site: Site) -> None:
    """The demo archives three days of its SI-IQ inputs through the update's publication: the
    model page draws them from /data/history.json (SI-IQ section 11)."""
    slug = top_model(site)
    page = site.json(f"/siiq/models/{slug}")
    history = site.json("/data/history.json")
    assert [d["date"] for d in history["days"]] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert [p["date"] for p in page["history"]] == [d["date"] for d in history["days"]]
    site.browser.open(f"/siiq/models/{slug}")
    drawn = site.browser.script(
        "const img = document.querySelector('#history-plot img');"
        "return {complete: img.complete, width: img.naturalWidth, src: img.src}"
    )
    assert drawn["complete"]
    assert drawn["width"] > 0
    assert drawn["src"].startswith("data:image/svg+xml;base64,")


def test_the_openapi_page_renders_every_operation_from_our_own_files(site: Site) -> None:
    """/schema is Swagger UI from npm, served here: nothing fetched from elsewhere, nothing the
    content security policy refuses (issue 16)."""
    load = site.browser.open("/schema")
    shown = site.browser.script(
        "return new Promise(done => { const start = Date.now(); (function poll() {"
        " const n = document.querySelectorAll('.opblock').length;"
        " if (n || Date.now() - start > 30000) done(n); else setTimeout(poll, 100); })(); })"
    )
    paths = site.json("/schema/openapi.json")["paths"]
    assert shown == sum(len(methods) for methods in paths.values())
    logged = site.browser.driver.get_log("browser")
    later = [e["message"] for e in logged if e["level"] == "SEVERE"]
    site.browser.network(load)
    assert load.console_errors + later + load.failed_requests == []
    assert [u for u in load.requests if not u.startswith((site.origin, "data:"))] == []
