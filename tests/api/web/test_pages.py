"""Pages and JSON on the same paths (litestar's test client over the demo): who gets which, the
figures of a page are its document's, the seed's wording, quoted text in house punctuation, no
em dash of our own, scripts only where the player is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from adapters.artifacts import FileArtifactStore
from adapters.banners import banner_patterns
from api.http import create_app
from api.services.calibrate import calibrate_files
from api.services.ingest import ingest
from api.web.plots import _draw
from api.web.templating import TEMPLATES, shown_text
from api.wiring import Argusic, Settings, init
from domain.siiq.index import NOT_CALIBRATED
from domain.siiq.records import CalibrationSummary
from ledger.ledger import Ledger
from tests.conftest import load_bundled_demo
from tests.publishing import publish
from tests.records import run, write
from tests.siiq_synthetic import Problem, write_files

HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
EM_DASH = "\u2014"
PAGES = [
    "/",
    "/leaderboard?cycle=2026-09",
    "/agents?cycle=2026-10",
    "/projects",
    "/projects/demo/pixel-forge",
    "/projects/test/quoted",
    "/runs/demo-001",
    "/runs/demo-046",
    "/runs/test-quoted",
    "/methodology",
    "/methodology/editions",
    "/methodology/sources",
    "/siiq",
    "/status",
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    folder = tmp_path_factory.mktemp("pages")
    settings = Settings(f"sqlite:///{folder}/ledger.db", folder / "home", "json")
    book, _ = init(settings)
    store = FileArtifactStore(settings.home / "artifacts")
    load_bundled_demo(settings, book)
    # a cycle with no record, by an agent with none: beside the demo's cycles
    quoted = run("test-quoted", "test/quoted", "test-agent", "100", cycle="2026-08")
    quoted["project"]["description"] = f"A tiny tool {EM_DASH} for tests {EM_DASH}"
    quoted["report"] = {**quoted["report"], "final_state": f"Installed {EM_DASH} it answered"}
    ingest(book, [write(folder, "extra.jsonl", [quoted])], store, banner_patterns)
    publish(book, settings.home)  # the pages are the public's
    with TestClient(app=create_app(Argusic(settings, book, store=store))) as test_client:
        yield test_client
    book.close()


def test_a_browser_gets_the_page_and_every_other_client_the_json(
    client: TestClient[Any],
) -> None:
    for path in PAGES:
        page = client.get(path, headers=HTML)
        assert page.headers["content-type"] == "text/html; charset=utf-8", path
        assert page.text.startswith("<!doctype html>")
        for headers in ({}, {"Accept": "*/*"}, {"Accept": "application/json"}):
            document = client.get(path, headers=headers)
            assert document.headers["content-type"] == "application/json", (path, headers)
            document.json()
        assert "Accept" in page.headers["vary"].split(",")
        assert "Accept" in document.headers["vary"].split(",")


def test_format_overrides_the_accept_header(client: TestClient[Any]) -> None:
    path = "/runs/demo-001"
    assert client.get(path, params={"format": "json"}, headers=HTML).json()["run_id"] == "demo-001"
    assert client.get(path, params={"format": "html"}).text.startswith("<!doctype html>")
    assert client.get(path, params={"format": "xml"}).status_code == 400
    assert client.get("/healthz", params={"format": "html"}).status_code == 406
    assert client.get("/healthz", params={"format": "yaml"}).status_code == 400
    assert client.get("/healthz", headers=HTML).json()["status"] == "ok"  # no page: JSON


def test_an_error_is_a_page_for_a_browser_and_a_document_otherwise(
    client: TestClient[Any],
) -> None:
    page = client.get("/runs/nowhere", headers=HTML)
    assert page.status_code == 404
    assert "no run &#39;nowhere&#39;" in page.text
    document = client.get("/runs/nowhere")
    assert (document.status_code, document.json()["status_code"]) == (404, 404)


class Values(HTMLParser):
    """Every `data-value` of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "data-value" in values:
            self.values.append(values["data-value"] or "")


def data_values(html: str) -> list[str]:
    parser = Values()
    parser.feed(html)
    return parser.values


def test_a_project_page_shows_the_figures_of_its_document(client: TestClient[Any]) -> None:
    path = "/projects/demo/pixel-forge"
    document = client.get(path).json()
    expected = [repr(a["score"]) if a["score"] is not None else "" for a in document["attempts"]]
    for s in document["sets"]:
        expected += [repr(s["median"]), "" if s["spread"] is None else repr(s["spread"])]
    assert data_values(client.get(path, headers=HTML).text) == expected


def test_a_hugging_face_run_says_the_documented_snippet_produced_output(
    client: TestClient[Any],
) -> None:
    model = client.get("/runs/demo-046", headers=HTML).text
    assert "Verified: the documented snippet produced output." in model
    assert "the product works" not in model
    repository = client.get("/runs/demo-001", headers=HTML).text
    assert "Verified: the product works." in repository
    assert client.get("/runs/demo-046").json()["verified_claim"] == (
        "the documented snippet produced output"
    )


def test_quoted_text_is_shown_in_house_punctuation(client: TestClient[Any]) -> None:
    run_page = client.get("/runs/test-quoted", headers=HTML).text
    assert "Installed, it answered" in run_page
    assert client.get("/runs/test-quoted").json()["final_state_shown"] == "Installed, it answered"
    project_page = client.get("/projects/test/quoted", headers=HTML).text
    assert "A tiny tool, for tests." in project_page


def test_no_page_and_no_template_carries_an_em_dash(client: TestClient[Any]) -> None:
    for template in TEMPLATES.rglob("*"):
        if template.is_file():
            assert EM_DASH not in template.read_text(), template
    for path in [*PAGES, "/runs/demo-061", "/projects/demo/ghost-build", "/projects"]:
        assert EM_DASH not in client.get(path, headers=HTML).text, path


def test_pages_need_no_script_but_the_run_pages_player(client: TestClient[Any]) -> None:
    for path in PAGES:
        scripts = re.findall(r"<script[^>]*>", client.get(path, headers=HTML).text)
        if path.startswith("/runs/"):
            assert scripts == [
                '<script src="/static/player/asciinema-player.min.js">',
                '<script src="/static/site/recording.js">',
            ]
        else:
            assert scripts == [], path
    page = client.get("/runs/demo-001", headers=HTML).text
    assert (
        'class="fallback">The player needs JavaScript. <a href="/runs/demo-001/evidence/cast">'
        in page
    )


def test_the_player_and_the_site_files_are_served_from_here(client: TestClient[Any]) -> None:
    for path in ("/static/player/asciinema-player.min.js", "/static/player/asciinema-player.css"):
        assert client.get(path).status_code == 200, "run `make install` (npm ci)"
    assert client.get("/static/site/site.css").status_code == 200


def test_a_log_is_shown_as_text_a_page_can_carry() -> None:
    assert shown_text(b"\x1b[31mred\x1b[0m\r\nnext\rover\tand\x7f\xff\n") == (
        "\u241b[31mred\u241b[0m\nnext\u240dover\tand\u2421\ufffd\n"
    )


def test_the_model_plot_draws_the_same_bytes_from_the_same_document(
    client: TestClient[Any],
) -> None:
    slug = client.get("/data/index.json").json()["models"][0]["slug"]

    def plot() -> str:
        page = client.get(f"/siiq/models/{slug}", headers=HTML).text
        found = re.search(r'<img class="plot" src="data:image/svg\+xml;base64,([^"]+)"', page)
        assert found is not None
        return found[1]

    first = plot()
    _draw.cache_clear()
    assert plot() == first


def test_a_secret_project_is_no_page_before_its_cycle_closes(client: TestClient[Any]) -> None:
    """October is open: its secret project is on no page, and nothing links to it."""
    assert client.get("/projects/demo/quiet-vault", headers=HTML).status_code == 404
    for path in ("/", "/projects", "/leaderboard?cycle=2026-10"):
        assert "quiet-vault" not in client.get(path, headers=HTML).text, path
    assert "hidden-gem" in client.get("/projects", headers=HTML).text  # September's, closed


def test_the_agents_page_shows_the_roster_of_a_published_cycle(client: TestClient[Any]) -> None:
    page = client.get("/agents", params={"cycle": "2026-10"}, headers=HTML).text
    assert 'data-agent="demo-agent-c"' in page
    assert "demo-model-c 2026-08-20" in page
    assert "Demo Compute Sponsor" in page  # section 13: the sponsorship shown with the results
    assert "quiet-vault" not in page  # October's secret pool, unpublished
    assert "night-owl" in page


class BenchmarkRows(HTMLParser):
    """The /siiq benchmark table's cells, by the row's benchmark."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self.row: list[str] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        name = dict(attrs).get("data-benchmark")
        if tag == "tr" and name:
            self.row = self.rows.setdefault(name, [])
        elif tag in {"td", "th"} and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in {"td", "th"} and self.row is not None and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def benchmark_rows(page: str) -> dict[str, list[str]]:
    parser = BenchmarkRows()
    parser.feed(page)
    return parser.rows


def shown_n(benchmark: dict[str, Any]) -> str:
    """SI-IQ section 1's table: n, "≈" for an effective number, "*" for an assumed one."""
    mark = {"effective": ("≈", ""), "assumed": ("", "*")}.get(benchmark["n_kind"], ("", ""))
    return f"{mark[0]}{benchmark['n']:g}{mark[1]}"


def test_the_siiq_page_shows_each_benchmarks_n_its_kind_and_its_models_in_the_fit(
    client: TestClient[Any],
) -> None:
    document = client.get("/siiq").json()
    rows = benchmark_rows(client.get("/siiq", headers=HTML).text)
    benchmarks = document["calibration"]["benchmarks"]
    assert set(rows) == {b["benchmark"] for b in benchmarks}
    for b in benchmarks:
        n, models = rows[b["benchmark"]][4:6]
        assert n == shown_n(b)
        assert b["models_in_fit"] == (int(models) if b["kept"] else None)
    assert any(b["kept"] and b["models_in_fit"] >= 10 for b in benchmarks)
    assert "The latest calibration was rejected" not in client.get("/siiq", headers=HTML).text


def test_after_a_rejected_calibration_the_siiq_page_says_so_and_shows_the_one_in_force(
    ledger: Ledger, settings: Settings, tmp_path: Path
) -> None:
    """SI-IQ section 3: a rejected calibration leaves the previous one in force; the page says
    the latest was rejected and why, and which index is in force, and labels no benchmark as
    if a rejected calibration had fitted a group."""
    problem = Problem(models=80, benchmarks=15, present=0.7, seed=21, reference=30)
    benchmarks = list(problem.benchmarks)
    benchmarks[0] = msgspec.structs.replace(benchmarks[0], n=285.6, n_kind="effective")
    benchmarks[1] = msgspec.structs.replace(benchmarks[1], n=100.0, n_kind="assumed")

    def calibrate(reference: list[str]) -> CalibrationSummary:
        folder = tmp_path / f"inputs-{ledger.size()}"
        folder.mkdir()
        paths = write_files(folder, problem.results, benchmarks, reference)
        files = (paths["results"], paths["benchmarks"], paths["reference"])
        summary = calibrate_files(ledger, *files, frozen=reference)  # the synthetic world's
        publish(ledger, settings.home)
        return summary

    def page() -> str:
        with TestClient(app=create_app(Argusic(settings, ledger))) as http:
            return http.get("/siiq", headers=HTML).text

    missing = [*problem.reference, "no-such-model"]
    rejected = calibrate(missing)
    assert not rejected.accepted
    assert {b.reason for b in rejected.benchmarks} == {NOT_CALIBRATED}
    shown = page()
    assert "The latest calibration was rejected" in shown
    assert "reference model no-such-model is missing from the fitted set" in shown
    assert "No calibration was accepted before it, so no index is in force" in shown
    assert benchmark_rows(shown) == {}

    assert calibrate(problem.reference).accepted
    shown = page()
    assert "was rejected" not in shown
    rows = benchmark_rows(shown)
    assert rows["bench-000"][4] == "≈285.6"
    assert rows["bench-001"][4] == "100*"
    assert rows["bench-002"][4] == "2000"

    calibrate(missing)
    shown = page()
    assert "The latest calibration was rejected" in shown
    assert "The index in force is the previous one, calibration version 1.0.0" in shown
    assert benchmark_rows(shown) == rows
    assert "no result in the fitted group" not in shown
    assert NOT_CALIBRATED not in shown
