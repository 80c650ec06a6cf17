"""The read API: litestar's test client for the shapes, a real server on 127.0.0.1 for the rest."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.http.limits import MAX_POSITION
from api.wiring import Argusic, Settings
from ledger.ledger import Ledger
from ledger.merkle import verify_inclusion
from ledger.note import Verifier, open_checkpoint
from tests.conftest import ARGUSIC, append_editions, load_bundled_demo
from tests.publishing import publish
from tests.servers import free_port, stop, wait_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def approved(ledger: Ledger, settings: Settings) -> int:
    """21 events, and the operator's own, approved for the public; the position approved (the
    approval's events come after it)."""
    append_editions(ledger, 0, 21)
    return publish(ledger, settings.home)


@pytest.fixture
def client(ledger: Ledger, settings: Settings, approved: int) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app=create_app(Argusic(settings, ledger))) as test_client:
        yield test_client


def test_healthz(client: TestClient, approved: int, ledger: Ledger) -> None:  # type: ignore[type-arg]
    assert client.get("/healthz").json() == {"status": "ok", "size": approved}
    assert approved < ledger.size()


def test_checkpoint_and_inclusion_proof_verify(client: TestClient, approved: int) -> None:  # type: ignore[type-arg]
    checkpoint = client.get("/ledger/checkpoint").json()
    body = open_checkpoint(checkpoint["note"], Verifier.parse(checkpoint["public_key"]))
    proof = client.get("/ledger/proof/inclusion", params={"position": 7}).json()
    assert proof["size"] == body.size == approved
    verify_inclusion(
        6,
        approved,
        bytes.fromhex(proof["leaf_hash"]),
        [bytes.fromhex(h) for h in proof["path"]],
        body.root,
    )
    second = {"first": 3, "second": approved}
    consistency = client.get("/ledger/proof/consistency", params=second).json()
    assert set(consistency) == {"first", "second", "path"}


def test_errors_map_to_status_codes(client: TestClient, approved: int) -> None:  # type: ignore[type-arg]
    assert (
        client.get("/ledger/proof/inclusion", params={"position": approved + 1}).status_code == 404
    )
    assert client.get("/ledger/proof/inclusion", params={"position": "x"}).status_code == 400
    assert client.get("/ledger/checkpoint", params={"size": 5}).status_code == 404
    assert client.get("/methodology/editions", params={"as_of": 99}).status_code == 404


def test_openapi_schema_lists_the_routes(client: TestClient) -> None:  # type: ignore[type-arg]
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert {
        "/healthz",
        "/ledger/checkpoint",
        "/ledger/proof/inclusion",
        "/ledger/proof/consistency",
        "/methodology/editions",
    } <= set(paths)


def test_openapi_schema_gives_the_position_bounds_exactly(client: TestClient) -> None:  # type: ignore[type-arg]
    """A bound written as a float (2^63 - 1 rounds up to 2^63) or left out (0) would document
    values the API refuses."""
    paths = client.get("/schema/openapi.json").json()["paths"]
    for path, name in [
        ("/ledger/proof/inclusion", "position"),
        ("/ledger/proof/consistency", "second"),
        ("/ledger/checkpoint", "size"),
        ("/leaderboard", "as_of"),
    ]:
        [schema] = [p["schema"] for p in paths[path]["get"]["parameters"] if p["name"] == name]
        bounds = (schema["minimum"], schema["maximum"])
        assert bounds == (0, MAX_POSITION), (path, schema)
        assert [type(b) for b in bounds] == [int, int], (path, schema)


def test_openapi_schema_offers_format_html_only_where_a_page_is(client: TestClient) -> None:  # type: ignore[type-arg]
    paths = client.get("/schema/openapi.json").json()["paths"]
    offered = {
        path: [p["schema"] for p in paths[path]["get"]["parameters"] if p["name"] == "format"]
        for path in ("/leaderboard", "/healthz", "/data/index.json")
    }
    assert offered["/leaderboard"][0]["pattern"] == "^(json|html)$"
    for path in ("/healthz", "/data/index.json"):
        assert offered[path][0]["oneOf"][0] == {"type": "string", "const": "json"}, path
        assert client.get(path, params={"format": "html"}).status_code == 406


def test_a_real_server_process_on_loopback(ledger: Ledger, cli_env: dict[str, str]) -> None:
    append_editions(ledger, 0, 3)
    port = free_port()
    server = subprocess.Popen(
        [ARGUSIC, "serve", "--port", str(port)],
        env=cli_env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # nothing approved yet: no figure (methodology section 1), and the ledger the public
        # sees is the empty tree
        assert wait_for(f"http://127.0.0.1:{port}/healthz", server).json() == {
            "status": "ok",
            "size": 0,
        }
        assert httpx.get(f"http://127.0.0.1:{port}/ledger/checkpoint").json()["size"] == 0
        board = httpx.get(f"http://127.0.0.1:{port}/leaderboard", params={"cycle": "2026-09"})
        assert board.json() == {"cycle": "2026-09", "as_of": 0, "rows": [], "approved": None}
    finally:
        stop(server)


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_make_run_serves_the_demo_on_port_8000(demo_size: int, cli_env: dict[str, str]) -> None:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8000)) == 0:
            pytest.fail("something already listens on 127.0.0.1:8000; `make run` needs the port")
    server = subprocess.Popen(
        ["make", "-s", "run"],
        cwd=ROOT,
        env=cli_env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        health = wait_for("http://127.0.0.1:8000/healthz", server, 300).json()
        board = httpx.get("http://127.0.0.1:8000/leaderboard", params={"cycle": "2026-09"}).json()
        # the public sees the ledger up to the demo's approval, before October's last runs
        assert health["size"] == board["approved"]["position"] < demo_size
        editions = httpx.get("http://127.0.0.1:8000/methodology/editions").json()["editions"]
        assert editions[5]["version"] == "1.2"
        home = httpx.get("http://127.0.0.1:8000/", headers={"Accept": "text/html"})
        assert home.headers["content-type"] == "text/html; charset=utf-8"
        assert "The current leaderboard" in home.text
        assert 'data-agent="demo-agent-a"' in home.text
    finally:
        stop(server)


@pytest.fixture
def demo_client(ledger: Ledger, settings: Settings) -> Iterator[TestClient]:  # type: ignore[type-arg]
    load_bundled_demo(settings, ledger)
    with TestClient(app=create_app(Argusic(settings, ledger))) as test_client:
        yield test_client


def test_read_api_over_the_demo(demo_size: int, demo_client: TestClient) -> None:  # type: ignore[type-arg]
    board = demo_client.get("/leaderboard", params={"cycle": "2026-09"}).json()
    # the public sees the demo as of its approval, before October's last runs
    assert (board["cycle"], board["as_of"]) == ("2026-09", board["approved"]["position"])
    assert board["as_of"] < demo_size
    # the stronger agent of a verdict chain is no row; each agent under its neutral label
    assert [(r["agent"], r["label"], r["score"]) for r in board["rows"]][-1] == (
        "demo-agent-d",
        "Argusic Agent D",
        40.0,
    )
    assert "demo-agent-strong" not in [r["agent"] for r in board["rows"]]
    project = demo_client.get("/projects/demo/legacy-cli").json()
    assert (project["project"], project["verdict"]) == ("demo/legacy-cli", "could_not_verify")
    run = demo_client.get("/runs/demo-001").json()
    assert (run["outcome"], run["score"], run["time_budget_minutes"]) == ("pass_full", 100.0, 120)
    editions = {
        e["version"]: e for e in demo_client.get("/methodology/editions").json()["editions"]
    }
    assert editions["1.2"]["effective_since"] == "2026-09-04"
    sources = demo_client.get("/methodology/sources").json()["sources"]
    # September's nine public repositories, its secret one (the cycle closed), October's public
    # one; October's secret one is not published yet
    assert sources[0] == {"source_type": "repository", "status": "in_use", "projects_tested": 11}
    trace = demo_client.get("/runs/demo-001/trace").json()
    assert trace["events"][0]["type"] == "EditionDrafted"
    assert {e["type"] for e in trace["events"][1:]} == {"RunRecorded", "EvidenceTransformed"}
    assert trace["copies"]["cast"]["transforms"] == [
        "security-redaction@4",
        "generated-key-mask@2",
        "neutral-branding@1",
    ]


def test_the_read_api_answers_as_of_an_approved_position(
    demo_client: TestClient,  # type: ignore[type-arg]
    ledger: Ledger,
    settings: Settings,
) -> None:
    october = {"cycle": "2026-10"}
    demo = demo_client.get("/leaderboard", params=october).json()["approved"]["position"]
    latest = publish(ledger, settings.home)  # October's last runs (demo-201...) approved too
    board = demo_client.get("/leaderboard", params=october | {"as_of": demo}).json()
    assert (board["as_of"], board["approved"]["position"]) == (demo, demo)
    assert board != demo_client.get("/leaderboard", params=october).json()
    assert demo_client.get("/runs/demo-201", params={"as_of": demo}).status_code == 404
    assert demo_client.get("/runs/demo-201", params={"as_of": latest}).status_code == 200
    assert demo_client.get("/runs/demo-001", params={"as_of": demo}).status_code == 200
    assert demo_client.get("/projects/demo/nothing").status_code == 404
