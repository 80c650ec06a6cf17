"""The environment a run had, published (methodology sections 7 and 18; issue 27, item 6): the
run document and page carry the image digest, the engine's version, the network setting and the
standard instructions' SHA-256; each version of the instructions is served once published, and
only what an operator approved."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from litestar.testing import TestClient

from api.services.instructions import kept_instructions, published
from domain.errors import NotFound
from tests.api.test_publication import CYCLE, agent, approve, runs
from tests.api.world import World

INSTRUCTIONS = b"# Make this project work\n\nFollow the README.\n"
SHA = hashlib.sha256(INSTRUCTIONS).hexdigest()
DIGEST = "sha256:" + "ab" * 32
LIMITS = {
    "memory_bytes": 8192 << 20,
    "nano_cpus": 2_000_000_000,
    "pids": 4096,
    "network": "none",
    "capabilities": ["CHOWN"],
    "gpu": False,
}


def test_the_run_page_shows_the_environment_and_links_the_instructions(
    world: World, public: TestClient[Any]
) -> None:
    world.ingest([agent(a) for a in ("agent-a", "agent-b")] + [CYCLE])
    assert published(world.ledger, world.store, INSTRUCTIONS) == SHA
    assert published(world.ledger, world.store, INSTRUCTIONS) == SHA  # once per version
    assert len(world.ledger.stream(f"instructions:{SHA}")) == 1
    records = runs("open-app", "public", "o")
    environment = {
        "image_digest": DIGEST,
        "engine_version": "26.1.5",
        "network": "none",
        "instructions_sha256": SHA,
        "limits": LIMITS,
    }
    world.ingest([records[0] | environment, *records[1:]])
    assert public.get(f"/instructions/{SHA}").status_code == 404  # nothing approved yet
    approve(world)
    doc = public.get("/runs/o-agent-a-0").json()
    assert {k: doc[k] for k in environment} == environment
    assert public.get("/runs/o-agent-b-0").json()["instructions_sha256"] is None
    served = public.get(f"/instructions/{SHA}")
    assert (served.status_code, served.content) == (200, INSTRUCTIONS)
    assert served.headers["content-type"] == "text/markdown; charset=utf-8"
    assert public.get(f"/instructions/{'0' * 64}").status_code == 404
    page = public.get("/runs/o-agent-a-0", headers={"accept": "text/html"}).text
    assert f'href="/instructions/{SHA}"' in page
    for shown in (DIGEST, "26.1.5", "the sandbox had no network", "8192 MiB", "at most 4096"):
        assert shown in page
    assert 'data-field="cpus" data-value="2.0"' in page


def test_the_run_page_tells_the_disputes_and_each_transform(
    world: World, public: TestClient[Any]
) -> None:
    """Section 19's history with outcomes, and section 17's truth: the stored file is the
    security-redacted one; each transform with what went in and came out."""
    world.ingest([agent(a) for a in ("agent-a", "agent-b")] + [CYCLE])
    world.ingest(runs("open-app", "public", "o"))
    world.act(
        {"action": "dispute_open", "run_id": "o-agent-a-0", "claimant": "a lab", "claim": "x"}
    )
    world.act(
        {"action": "dispute_resolve", "dispute": "o-agent-a-0.1", "outcome": "upheld", "note": "ok"}
    )
    approve(world)
    doc = public.get("/runs/o-agent-a-0").json()
    [dispute] = doc["disputes"]
    assert (dispute["claimant"], dispute["outcome"]) == ("a lab", "upheld")
    steps = doc["evidence"]["log"]["steps"]
    assert [s["transform"] for s in steps] == doc["evidence"]["log"]["transforms"]
    assert steps[-1]["output_sha256"] == doc["evidence"]["log"]["served_sha256"]
    page = public.get("/runs/o-agent-a-0", headers={"accept": "text/html"}).text
    assert "opened by a lab" in page
    assert "the evidence supports the original result (ok)" in page
    assert "the bytes as they arrived are never kept" in page
    assert "Each file is kept as it came" not in page
    for step in steps:
        assert step["output_sha256"] in page
    assert (
        "No one has disputed"
        in public.get("/runs/o-agent-b-0", headers={"accept": "text/html"}).text
    )


def test_instructions_no_longer_kept_are_named(world: World) -> None:
    published(world.ledger, world.store, INSTRUCTIONS)
    assert kept_instructions(world.store, SHA) == INSTRUCTIONS
    missing = hashlib.sha256(b"another version").hexdigest()
    with pytest.raises(NotFound, match=missing):
        kept_instructions(world.store, missing)
