"""Public answers as HTTP caches them (issue 31, deliverable 3), on SQLite and PostgreSQL: a
strong ETag on every GET and 304 for a client that holds it, HEAD wherever GET is, immutable
answers as of an explicit approved position and a short max-age for the latest, the same bytes
for an approved position forever, and each answer made once per approved position."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.http.caching import GZIP_LEAST, HELD_MOST, IMMUTABLE, LATEST, SharedRead, matches
from api.wiring import Argusic, Settings
from tests.api.test_public_positions import ANSWERED, Positions, approve, asked, positions
from tests.api.world import World
from tests.records import run

__all__ = ["positions"]  # the fixture, shared

PUBLIC_GETS = [
    *ANSWERED,
    "/healthz",
    "/ledger/checkpoint",
    "/ledger/proof/inclusion?position=1",
    "/data/evidence.jsonl",
    "/status.json",
    "/hardware/table",
    "/methodology?format=html",
]
"""Public GETs that answer 200 once a position is approved."""

Client = TestClient  # type: ignore[type-arg]


@pytest.fixture
def argusic(world: World, settings: Settings) -> Argusic:
    return Argusic(settings, world.ledger)


@pytest.fixture
def client(argusic: Argusic) -> Iterator[Client]:
    with TestClient(app=create_app(argusic)) as answering:
        yield answering


def test_every_public_get_has_a_strong_etag_and_answers_304_to_a_client_holding_it(
    positions: Positions, client: Client
) -> None:
    for path in PUBLIC_GETS:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        etag = answer.headers["etag"]
        assert etag.startswith('"'), (path, etag)  # strong: no W/
        assert etag.endswith('"'), (path, etag)
        held = client.get(path, headers={"if-none-match": etag})
        assert (held.status_code, held.content) == (304, b""), path
        assert held.headers["etag"] == etag, path
        other = client.get(path, headers={"if-none-match": '"something-else"'})
        assert (other.status_code, other.content) == (200, answer.content), path


def test_head_is_answered_wherever_get_is_with_the_same_headers_and_no_body(
    positions: Positions, client: Client
) -> None:
    for path in PUBLIC_GETS:
        got, head = client.get(path), client.head(path)
        assert (head.status_code, head.content) == (200, b""), path
        for name in ("etag", "content-type", "content-length", "cache-control"):
            assert head.headers.get(name) == got.headers.get(name), (path, name)
    assert client.head("/runs/nobody").status_code == 404
    assert client.head("/operator/actions").status_code == 405  # no GET there either


def test_an_answer_as_of_an_approved_position_is_immutable_and_the_latest_short_lived(
    positions: Positions, client: Client
) -> None:
    for path in ANSWERED:
        pinned = client.get(asked(path, as_of=positions.first))
        assert pinned.headers["cache-control"] == IMMUTABLE.decode(), path
        assert client.get(path).headers["cache-control"] == LATEST.decode(), path
    for path in ("/ledger/checkpoint", "/ledger/proof/inclusion?position=1"):
        assert client.get(asked(path, size=positions.first)).headers["cache-control"] == (
            IMMUTABLE.decode()
        )
    consistency = f"/ledger/proof/consistency?first=1&second={positions.first}"
    assert client.get(consistency).headers["cache-control"] == IMMUTABLE.decode()
    refused = client.get(asked("/projects", as_of=positions.head))
    assert refused.status_code == 404
    assert "immutable" not in refused.headers.get("cache-control", "")
    # the methodology page states the running release's rules too: never cached for good
    rules = client.get(asked("/methodology", as_of=positions.first))
    assert (rules.status_code, rules.headers["cache-control"]) == (200, LATEST.decode())


def test_an_answer_as_of_an_approved_position_is_the_same_bytes_forever(
    positions: Positions, client: Client, world: World
) -> None:
    """Later approvals and later runs change the latest answers, never one as of a position."""
    pinned = {path: client.get(asked(path, as_of=positions.first)) for path in ANSWERED}
    latest = {path: client.get(path) for path in ANSWERED}
    world.ingest([run("r-3", "octo/p", "agent-a", "80", day=13)])
    newest = approve(world)
    for path in ANSWERED:
        again = client.get(asked(path, as_of=positions.first))
        assert again.content == pinned[path].content, path
        assert again.headers["etag"] == pinned[path].headers["etag"], path
        now = client.get(path)
        assert now.json()["as_of"] == newest, path
        assert now.headers["etag"] != latest[path].headers["etag"], path
        held = client.get(path, headers={"if-none-match": latest[path].headers["etag"]})
        assert held.status_code == 200, path  # the copy held is no longer the latest


def test_a_compressed_answer_is_the_same_bytes_each_time_tagged_apart_from_the_plain_one(
    positions: Positions, client: Client
) -> None:
    path = asked("/methodology", as_of=positions.second)
    plain = client.get(path, headers={"accept-encoding": "identity"})
    assert len(plain.content) >= GZIP_LEAST
    assert "content-encoding" not in plain.headers
    raw = [sent(client, path) for _ in range(2)]
    zipped = client.get(path, headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert raw[0] == raw[1]
    assert gzip.decompress(raw[0]) == plain.content
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert "Accept-Encoding" in zipped.headers["vary"]


def test_an_answer_that_fits_one_segment_is_sent_as_it_is(client: Client) -> None:
    small = client.get("/ledger/checkpoint", headers={"accept-encoding": "gzip"})
    assert len(small.content) < GZIP_LEAST
    assert "content-encoding" not in small.headers
    assert "Accept-Encoding" not in small.headers.get("vary", "")


def sent(client: Client, path: str) -> bytes:
    """The body as sent to a client accepting gzip, undecoded."""
    with client.stream("GET", path, headers={"accept-encoding": "gzip"}) as answer:
        return b"".join(answer.iter_raw())


def counted(queries: object, name: str) -> list[int]:
    """Each call of the queries' `name`, counted."""
    calls: list[int] = []
    asked_for: Callable[..., Any] = getattr(queries, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return asked_for(*args, **kwargs)

    setattr(queries, name, counting)
    return calls


def test_each_answer_is_made_once_per_approved_position(
    positions: Positions, world: World, settings: Settings
) -> None:
    argusic = Argusic(settings, world.ledger)
    board, runs = counted(argusic.public, "leaderboard"), counted(argusic.public, "run")
    tiles = counted(argusic.public_ledger, "tile")
    with TestClient(app=create_app(argusic)) as client:
        for _ in range(3):
            assert client.get("/leaderboard?cycle=2026-09").status_code == 200
            assert client.get("/runs/r-0").status_code == 200
            assert client.get(asked("/runs/r-0", as_of=positions.first)).status_code == 200
        assert (len(board), len(runs)) == (1, 2)
        world.ingest([run("r-3", "octo/p", "agent-a", "80", day=13)])
        assert client.get("/leaderboard?cycle=2026-09").status_code == 200
        assert len(board) == 1  # nothing new approved: the same answer
        assert client.get("/tile/0/000.p/3").status_code == 200
        newest = approve(world)
        for _ in range(2):
            assert client.get("/leaderboard?cycle=2026-09").json()["as_of"] == newest
            assert client.get("/tile/0/000.p/3").status_code == 200
        assert (len(board), len(tiles)) == (2, 1)  # a tile is the same whatever is approved


def test_an_answer_is_made_as_of_the_approved_position_it_is_kept_under(
    positions: Positions, world: World, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An approval that lands between the server's reading the latest approved position (the
    key) and its making the answer changes neither: the answer is as of the key's position,
    and the database is asked for the position once."""
    argusic = Argusic(settings, world.ledger)
    leaderboard, newer = argusic.public.leaderboard, []

    def approved_meanwhile(cycle: str, as_of: int | None = None) -> object:
        if not newer:
            approving = len(sizes)
            newer.append(approve(world))
            del sizes[approving:]  # the operator's, not the server's
        return leaderboard(cycle, as_of)

    monkeypatch.setattr(argusic.public, "leaderboard", approved_meanwhile)
    with TestClient(app=create_app(argusic)) as client:
        assert client.get("/healthz").status_code == 200  # the reader caught up
        sizes = counted(world.ledger, "size")
        board = client.get("/leaderboard?cycle=2026-09").json()
        assert (board["as_of"], len(sizes)) == (positions.second, 1)
        assert client.get("/leaderboard?cycle=2026-09").json()["as_of"] == newer[0]


def test_if_none_match_compares_weakly_and_star_matches_any() -> None:
    assert matches('"a"', b'"a"')
    assert matches('W/"a"', b'"a"')
    assert matches('"b", "a"', b'"a"')
    assert matches("*", b'"a"')
    assert not matches('"b"', b'"a"')
    assert not matches(None, b'"a"')
    assert not matches("", b'"a"')


def test_a_file_too_large_to_hold_goes_out_as_it_comes_under_its_own_tag(
    client: Client,
) -> None:
    path = "/static/swagger/swagger-ui-bundle.js"  # over a MiB
    answer = client.get(path, headers={"accept-encoding": "identity"})
    assert answer.status_code == 200
    assert len(answer.content) > HELD_MOST
    assert "content-encoding" not in answer.headers
    held = client.get(path, headers={"if-none-match": answer.headers["etag"]})
    assert (held.status_code, held.content) == (304, b"")
    head = client.head(path)
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["etag"] == answer.headers["etag"]


def test_requests_share_one_read_of_the_approved_position_begun_after_they_came() -> None:
    """Three requests that come while a read is under way take none of its answer (an approval
    may have committed after it began): they share the one read begun next."""
    reads: list[int] = []
    first_began, go_on = threading.Event(), threading.Event()

    def read() -> int:
        reads.append(len(reads) + 1)
        if len(reads) == 1:
            first_began.set()
            go_on.wait(10)
        return reads[-1]

    shared, answers = SharedRead(read), {}

    async def ask(name: str) -> None:
        answers[name] = await shared()

    async def requests() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask, "first")
            await anyio.to_thread.run_sync(first_began.wait, 10)
            for name in ("a", "b", "c"):
                tasks.start_soon(ask, name)
            await anyio.wait_all_tasks_blocked()
            go_on.set()

    anyio.run(requests)
    assert answers == {"first": 1, "a": 2, "b": 2, "c": 2}
    assert reads == [1, 2]
