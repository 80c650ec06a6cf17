"""What the public may ask of positions (issue 26, item 5), on SQLite and PostgreSQL: `?as_of=`
only at an approved publication position, any other a 404 naming the nearest approved position
at or below it; and the ledger's own endpoints (`/healthz`, `/ledger/checkpoint`, the proofs)
answering as of the latest approved position, nothing past it revealed."""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlencode

import pytest
from litestar.testing import TestClient

from tests.api.world import World
from tests.publishing import publish
from tests.records import run

AS_OF_PATHS = [
    "/leaderboard?cycle=2026-09",
    "/projects",
    "/projects/octo/p",
    "/runs/r-0",
    "/methodology",
    "/methodology/editions",
    "/methodology/sources",
    "/agents?cycle=2026-09",
    "/data/index.json",
    "/siiq",
    "/siiq/models/some-model",
    "/data/evidence.jsonl",
    "/data/history.json",
    "/status.json",
    "/status",
]
"""Every public path that takes `as_of`."""
ANSWERED = ["/leaderboard?cycle=2026-09", "/projects", "/runs/r-0", "/methodology/editions"]
"""Paths that answer (200) as of the first approval."""


class Positions(NamedTuple):
    first: int
    """The first approved position."""
    second: int
    """The second, the latest."""
    head: int
    """The ledger's size: runs were recorded after the second approval."""


@pytest.fixture
def positions(world: World) -> Positions:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    first = approve(world)
    world.ingest([run("r-1", "octo/p", "agent-a", "92", day=11)])
    second = approve(world)
    world.ingest([run("r-2", "octo/p", "agent-a", "T", day=12)])
    return Positions(first, second, world.ledger.size())


def approve(world: World) -> int:
    """Everything recorded so far approved for the public; the position approved."""
    return publish(world.ledger, world.folder / "home")


def asked(path: str, **params: int) -> str:
    """`path` with `params` added to its query."""
    return f"{path}{'&' if '?' in path else '?'}{urlencode(params)}"


def not_found(client: TestClient, path: str, **params: int) -> str:  # type: ignore[type-arg]
    """The detail of the 404 `path` answers with `params`."""
    answer = client.get(asked(path, **params), headers={"accept": "application/json"})
    assert answer.status_code == 404, (path, params, answer.text)
    return str(answer.json()["detail"])


def refusal(position: int, nearest: str) -> str:
    return (
        f"position {position} is not an approved publication position, the only positions "
        f"the public reads as of; {nearest}"
    )


def test_as_of_answers_only_at_approved_positions_naming_the_nearest_below(
    positions: Positions,
    public: TestClient,  # type: ignore[type-arg]
) -> None:
    first, second, head = positions
    cases = {
        first - 1: "none is at or below it",
        first + 1: f"the nearest at or below it is {first}",
        second - 1: f"the nearest at or below it is {first}",
        second + 1: f"the nearest at or below it is {second}",
        head: f"the nearest at or below it is {second}",
        head + 5: f"the nearest at or below it is {second}",
    }
    for path in AS_OF_PATHS:
        for position, nearest in cases.items():
            assert not_found(public, path, as_of=position) == refusal(position, nearest), path
    for path in ANSWERED:
        for position in (first, second):
            answer = public.get(asked(path, as_of=position))
            assert answer.status_code == 200, (path, position, answer.text)
            assert answer.json()["as_of"] == position, path
    for path in ("/status.json", "/data/evidence.jsonl"):  # the live and the sources' files
        assert public.get(asked(path, as_of=first)).status_code == 200, path


def test_before_any_approval_no_position_is_public(
    world: World,
    public: TestClient,  # type: ignore[type-arg]
) -> None:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    for path in AS_OF_PATHS:
        for position in (0, 1, world.ledger.size()):
            detail = not_found(public, path, as_of=position)
            assert detail == refusal(position, "none is approved yet"), path


def test_a_document_as_of_an_earlier_approval_names_that_approval(
    positions: Positions,
    public: TestClient,  # type: ignore[type-arg]
    world: World,
) -> None:
    """The same bytes whenever it is read: a later approval does not change what a document
    as of an approved position says was approved."""
    first, second, _ = positions
    board = public.get("/leaderboard", params={"cycle": "2026-09", "as_of": first}).json()
    checkpoint = world.ledger.checkpoint(first)
    assert board["approved"] == {
        "position": first,
        "root": checkpoint.root.hex(),
        "note": checkpoint.note,
    }
    approve(world)
    assert public.get("/leaderboard", params={"cycle": "2026-09", "as_of": first}).json() == board
    latest = public.get("/leaderboard", params={"cycle": "2026-09", "as_of": second}).json()
    assert latest["approved"]["position"] == second


def test_the_ledger_endpoints_answer_as_of_the_latest_approval(
    positions: Positions,
    public: TestClient,  # type: ignore[type-arg]
    world: World,
) -> None:
    first, second, head = positions
    assert public.get("/healthz").json() == {"status": "ok", "size": second}
    checkpoint = public.get("/ledger/checkpoint").json()
    assert (checkpoint["size"], checkpoint["root"]) == (
        second,
        world.ledger.checkpoint(second).root.hex(),
    )
    assert public.get("/ledger/checkpoint", params={"size": first}).json()["size"] == first
    assert public.get("/ledger/proof/inclusion", params={"position": 1}).json()["size"] == second
    within = {"position": first, "size": first}
    assert public.get("/ledger/proof/inclusion", params=within).status_code == 200
    between = {"first": first, "second": second}
    assert public.get("/ledger/proof/consistency", params=between).status_code == 200
    beyond = [
        ("/ledger/checkpoint", {"size": head}),
        ("/ledger/checkpoint", {"size": second + 1}),
        ("/ledger/proof/inclusion", {"position": second + 1}),
        ("/ledger/proof/inclusion", {"position": head}),
        ("/ledger/proof/inclusion", {"position": 1, "size": head}),
        ("/ledger/proof/consistency", {"first": first, "second": head}),
        ("/ledger/proof/consistency", {"first": second, "second": second + 1}),
    ]
    for path, params in beyond:
        detail = not_found(public, path, **params)
        assert str(second) in detail, (path, params, detail)  # the tree the public has
        if head not in params.values():
            assert str(head) not in detail, (path, params, detail)  # nothing of the head
    assert not_found(public, "/ledger/checkpoint", size=head) == (
        f"tree size {head} is not public: the public sees trees of sizes 0 to {second}, the "
        "latest approved position"
    )


def test_before_any_approval_the_ledger_endpoints_show_the_empty_tree(
    world: World,
    public: TestClient,  # type: ignore[type-arg]
) -> None:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    assert public.get("/healthz").json() == {"status": "ok", "size": 0}
    assert public.get("/ledger/checkpoint").json()["size"] == 0
    assert not_found(public, "/ledger/proof/inclusion", position=1) == (
        "tree size 0 is not public: no position is approved yet"
    )
    assert not_found(public, "/ledger/proof/consistency", first=1, second=2) == (
        "tree size 2 is not public: no position is approved yet"
    )
