"""The ledger as C2SP tlog-tiles (issue 31, deliverable 4), on SQLite and PostgreSQL, checked by
a tiles client written here from the spec (c2sp.org/tlog-tiles, signed-note, tlog-checkpoint,
RFC 6962 2.1) and nothing of the ledger's code: the checkpoint's signature, a published run's
events included in the tree, two published checkpoints consistent, from tiles alone; nothing
past the approved position served, entry bundles not at all."""

from __future__ import annotations

import base64
import hashlib
from typing import NamedTuple

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from litestar.testing import TestClient

from api.http.caching import IMMUTABLE
from ledger.tiles import Tile, TileError, parse_tile
from tests.api.test_public_positions import approve
from tests.api.world import World
from tests.conftest import append_editions
from tests.records import run

Client = TestClient  # type: ignore[type-arg]


# --- the client, from the specs ---------------------------------------------------------------


class Signed(NamedTuple):
    origin: str
    size: int
    root: bytes


def opened(note: str, verifier_key: str) -> Signed:
    """signed-note and tlog-checkpoint: the checkpoint `note` says, once the Ed25519 signature
    of the key `name+hex id+base64(0x01 || key)` on its text checks out."""
    name, key_id, encoded = verifier_key.split("+", 2)
    key = base64.b64decode(encoded)
    assert key[0] == 1
    assert hashlib.sha256(name.encode() + b"\n" + key).digest()[:4].hex() == key_id
    text, _, signatures = note.partition("\n\n")
    text += "\n"
    for line in signatures.splitlines():
        signer, signature = line.removeprefix("\u2014 ").split(" ")
        raw = base64.b64decode(signature)
        if signer == name and raw[:4].hex() == key_id:
            Ed25519PublicKey.from_public_bytes(key[1:]).verify(raw[4:], text.encode())
            origin, size, root, *_ = text.split("\n")
            return Signed(origin, int(size), base64.b64decode(root))
    raise AssertionError(f"no signature by {name}")


def node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def largest_power_below(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def tile_path(level: int, n: int, width: int) -> str:
    """tlog-tiles: <L>/<N>[.p/<W>], N in zero-padded 3-digit elements, all but the last x-ed."""
    elements = [f"{n % 1000:03d}"]
    n //= 1000
    while n:
        elements.insert(0, f"x{n % 1000:03d}")
        n //= 1000
    return f"/tile/{level}/{'/'.join(elements)}" + ("" if width == 256 else f".p/{width}")


class Tiles:
    """The hashes of the tree of `size` leaves, read from tiles only."""

    def __init__(self, client: Client, size: int) -> None:
        self.client, self.size, self.fetched = client, size, dict[tuple[int, int], bytes]()

    def tile(self, level: int, n: int) -> bytes:
        if (level, n) not in self.fetched:
            full = (n + 1) * 256 * 256**level <= self.size
            width = 256 if full else self.size // 256**level - n * 256
            answer = self.client.get(tile_path(level, n, width))
            assert answer.status_code == 200, (level, n, width, answer.text)
            assert answer.headers["content-type"] == "application/octet-stream"
            assert len(answer.content) == 32 * width
            self.fetched[level, n] = answer.content
        return self.fetched[level, n]

    def subtree(self, height: int, index: int) -> bytes:
        """MTH of the perfect subtree of 2**height leaves numbered `index` at its height."""
        level, within = divmod(height, 8)
        first = index << within  # its first hash among the tile level's
        data = self.tile(level, first // 256)
        row = [data[32 * i : 32 * i + 32] for i in range(first % 256, first % 256 + (1 << within))]
        while len(row) > 1:
            row = [node(row[i], row[i + 1]) for i in range(0, len(row), 2)]
        return row[0]

    def mth(self, start: int, end: int) -> bytes:
        """RFC 6962 2.1: MTH(D[start:end])."""
        n = end - start
        if n & (n - 1) == 0 and start % n == 0:
            return self.subtree(n.bit_length() - 1, start // n)
        k = largest_power_below(n)
        return node(self.mth(start, start + k), self.mth(start + k, end))

    def path(self, m: int, start: int, end: int) -> list[bytes]:
        """RFC 6962 2.1.1: PATH(m, D[start:end]), from tiles."""
        n = end - start
        if n == 1:
            return []
        k = largest_power_below(n)
        if m < k:
            return [*self.path(m, start, start + k), self.mth(start + k, end)]
        return [*self.path(m - k, start + k, end), self.mth(start, start + k)]


def root_from_path(leaf: bytes, index: int, size: int, path: list[bytes]) -> bytes:
    """RFC 9162 2.1.3.2: the root an inclusion proof leads to."""
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if fn & 1 or fn == sn:
            r = node(p, r)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node(r, p)
        fn, sn = fn >> 1, sn >> 1
    assert sn == 0
    return r


# --- the tests ----------------------------------------------------------------------------------


def test_a_tiles_client_checks_inclusion_and_consistency_from_tiles_alone(
    world: World, public: Client
) -> None:
    world.ingest([run("r-0", "octo/p", "agent-a", "100")])
    append_editions(world.ledger, 100, 600)
    first = approve(world)
    verifier = public.get("/ledger/checkpoint").json()["public_key"]
    earlier = opened(public.get("/checkpoint").text, verifier)
    assert earlier.size == first
    append_editions(world.ledger, 700, 300)
    second = approve(world)
    append_editions(world.ledger, 1000, 5)  # past the approval: never in a tile
    answer = public.get("/checkpoint")
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    latest = opened(answer.text, verifier)
    assert (latest.size, latest.origin) == (second, earlier.origin)
    tiles = Tiles(public, latest.size)
    assert tiles.mth(0, latest.size) == latest.root
    assert (
        tiles.mth(0, earlier.size) == earlier.root
    )  # the same tiles: the earlier tree is a prefix
    run_events = [r for r in world.ledger.rows(0, first) if r.stream.endswith("r-0")]
    assert run_events
    for row in run_events:
        leaf = hashlib.sha256(b"\x00" + row.canonical).digest()
        for size, root in ((earlier.size, earlier.root), (latest.size, latest.root)):
            proof = Tiles(public, size).path(row.position - 1, 0, size)
            assert root_from_path(leaf, row.position - 1, size, proof) == root
    wrong = hashlib.sha256(b"\x00" + run_events[0].canonical + b" ").digest()
    proof = tiles.path(run_events[0].position - 1, 0, latest.size)
    assert root_from_path(wrong, run_events[0].position - 1, latest.size, proof) != latest.root


def test_tiles_stop_at_the_approved_position_and_entry_bundles_are_not_served(
    world: World, public: Client
) -> None:
    append_editions(world.ledger, 100, 600)
    approved = approve(world)  # a few over 600
    append_editions(world.ledger, 700, 600)
    full = public.get(tile_path(0, 1, 256))
    assert full.status_code == 200
    assert full.headers["cache-control"] == IMMUTABLE.decode()
    assert public.get(tile_path(0, 2, approved - 512)).status_code == 200
    for beyond in (tile_path(0, 2, 256), tile_path(0, 2, approved - 511), tile_path(1, 0, 3)):
        assert public.get(beyond).status_code == 404, beyond
    assert public.get(tile_path(1, 0, 2)).status_code == 200
    for refused in (
        "/tile/entries/000",
        "/tile/entries/000.p/5",
        "/tile/01/000",
        "/tile/0/0",
        "/tile/0/x000/001",
        "/tile/0/000.p/0",
        "/tile/0/000.p/256",
        "/tile/64/000",
    ):
        assert public.get(refused).status_code == 404, refused


def test_a_tile_path_writes_n_in_three_digit_elements() -> None:
    assert Tile(0, 1234067, 256).path == "0/x001/x234/067"
    assert Tile(2, 5, 17).path == "2/005.p/17"
    assert parse_tile("0", "x001/x234/067") == Tile(0, 1234067, 256)
    assert parse_tile("3", "000.p/255") == Tile(3, 0, 255)
    for level, index in [("00", "000"), ("0", "1234"), ("0", "x1/000"), ("0", "000.p/01")]:
        with pytest.raises(TileError):
            parse_tile(level, index)
