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
    }
    world.ingest([records[0] | environment, *records[1:]])
    assert public.get(f"/instructions/{SHA}").status_code == 404  # nothing approved yet
    approve(world)
    doc = public.get("/runs/o-agent-a-0").json()
    assert {k: doc[k] for k in environment} == environment
    assert public.get("/runs/o-agent-b-0").json()["instructions_sha256"] is None
    served = public.get(f"/instructions/{SHA}")
    assert (served.status_code, served.content) == (200, INSTRUCTIONS)
    assert served.headers["content-type"].startswith("text/markdown")
    assert public.get(f"/instructions/{'0' * 64}").status_code == 404
    page = public.get("/runs/o-agent-a-0", headers={"accept": "text/html"}).text
    assert f'href="/instructions/{SHA}"' in page
    for shown in (DIGEST, "26.1.5", "the sandbox had no network"):
        assert shown in page


def test_instructions_no_longer_kept_are_named(world: World) -> None:
    published(world.ledger, world.store, INSTRUCTIONS)
    assert kept_instructions(world.store, SHA) == INSTRUCTIONS
    missing = hashlib.sha256(b"another version").hexdigest()
    with pytest.raises(NotFound, match=missing):
        kept_instructions(world.store, missing)
