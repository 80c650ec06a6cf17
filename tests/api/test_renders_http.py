"""A run's renders over HTTP (methodology section 17; issue 32, deliverable 3): listed as of the
approved position only, each render's page linking back to its run and evidence, its file the
bytes recorded; none of a run the public may not see. And the run document's timeline."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import msgspec
import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.services.render import RenderAsked, render_run
from api.wiring import Argusic, Settings
from domain.events import RunRecorded, TimelineRecorded, streams
from domain.evidence.timeline import run_timeline
from ledger.ledger import Ledger
from tests.conftest import load_bundled_demo
from tests.publishing import publish

PUBLIC_RUN, SECRET_RUN = "demo-012", "demo-107"
"""A public run whose recording shows a failure; a secret-pool run of the open cycle."""


@pytest.fixture
def argusic(settings: Settings, ledger: Ledger) -> Argusic:
    load_bundled_demo(settings, ledger)
    return Argusic(settings, ledger)


@pytest.fixture
def client(argusic: Argusic) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app=create_app(argusic)) as client:
        yield client


def render(argusic: Argusic, run_id: str) -> str:
    asked = RenderAsked(run_id=run_id, format="gif", speed=4, captions=True)
    report, _ = render_run(
        argusic.ledger, argusic.methodology, argusic.store, argusic.renderer, asked
    )
    return report.sha256


def test_renders_are_public_once_approved_and_link_back_to_their_evidence(
    argusic: Argusic,
    client: TestClient,
    settings: Settings,  # type: ignore[type-arg]
) -> None:
    sha256 = render(argusic, PUBLIC_RUN)
    before = client.get(f"/runs/{PUBLIC_RUN}/renders").json()
    assert before["renders"] == []  # recorded after the approved position
    assert client.get(f"/runs/{PUBLIC_RUN}/renders/1").status_code == 404
    approved = publish(argusic.ledger, settings.home)
    listed = client.get(f"/runs/{PUBLIC_RUN}/renders").json()
    assert listed["as_of"] == approved
    cast = client.get(f"/runs/{PUBLIC_RUN}").json()["evidence"]["cast"]["served_sha256"]
    [row] = listed["renders"]
    assert (row["render"], row["sha256"], row["source_sha256"]) == (
        f"{PUBLIC_RUN}/render/1",
        sha256,
        cast,
    )
    assert row["edits"] == ["speed 4", "captions from the timeline"]
    assert row["url"] == f"/runs/{PUBLIC_RUN}/renders/1"
    file = client.get(f"{row['url']}/file")
    assert file.status_code == 200
    assert file.headers["content-type"] == "image/gif"
    assert hashlib.sha256(file.content).hexdigest() == sha256
    page = client.get(row["url"], headers={"Accept": "text/html"}).text
    assert f'href="/runs/{PUBLIC_RUN}" id="run-link"' in page
    assert f'href="/runs/{PUBLIC_RUN}/evidence/cast" id="evidence-link"' in page
    run_page = client.get(f"/runs/{PUBLIC_RUN}", headers={"Accept": "text/html"}).text
    assert f'href="{row["url"]}"' in run_page
    listing = client.get(f"/runs/{PUBLIC_RUN}/renders", headers={"Accept": "text/html"}).text
    assert sha256 in listing


def test_no_render_of_a_run_the_public_may_not_see_is_served(
    argusic: Argusic,
    client: TestClient,
    settings: Settings,  # type: ignore[type-arg]
) -> None:
    render(argusic, SECRET_RUN)
    publish(argusic.ledger, settings.home)
    assert argusic.methodology.renders(SECRET_RUN).renders  # the operator sees it
    for path in ("", "/1", "/1/file"):
        assert client.get(f"/runs/{SECRET_RUN}/renders{path}").status_code == 404


def test_the_run_document_serves_the_timeline_of_its_served_recording(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    document = client.get(f"/runs/{PUBLIC_RUN}").json()
    timeline = document["timeline"]
    assert timeline["source_sha256"] == document["evidence"]["cast"]["served_sha256"]
    kinds = [mark["kind"] for mark in timeline["marks"]]
    assert kinds == ["command", "command", "failure", "end"]
    assert "start failed" in timeline["marks"][2]["label"]
    assert (timeline["errors_found"], timeline["errors_fixed"]) == (2, 1)


def test_a_runs_timeline_is_recorded_on_arrival_as_reading_derives_it(
    argusic: Argusic,
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    """Deliverable 1: stored as an event when the run arrives, derivable for an old run: the
    two are the same timeline, and the run document serves it."""
    [recorded] = [r.event for r in argusic.ledger.stream(streams.timeline(PUBLIC_RUN))]
    assert isinstance(recorded, TimelineRecorded)
    [run] = [r.event for r in argusic.ledger.stream(streams.run(PUBLIC_RUN))]
    assert isinstance(run, RunRecorded)
    served = recorded.timeline.source_sha256
    assert run_timeline(run, argusic.store.read(served), served) == recorded.timeline
    document = client.get(f"/runs/{PUBLIC_RUN}").json()
    assert document["timeline"] == msgspec.to_builtins(recorded.timeline)
