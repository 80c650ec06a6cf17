"""The ledger as C2SP tlog-tiles serves a log (c2sp.org/tlog-tiles): the signed checkpoint at
the latest approved position and the tree's hash tiles up to it, for any tiles client. Entry
bundles (`/tile/entries/...`) are not served: the events behind the publication boundary stay
there; an auditor gets the leaves in an export or an audit bundle and checks them against the
public tiles."""

from __future__ import annotations

from litestar import Response, Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from api.http.caching import IMMUTABLE
from api.http.openapi import problems
from api.services.queries import LedgerQueries
from domain.errors import NotFound
from ledger.tiles import TileError, parse_tile


@get("/checkpoint", sync_to_thread=True, responses=problems(503), media_type="text/plain")
def checkpoint_note(ledger_queries: NamedDependency[LedgerQueries]) -> Response[str]:
    """tlog-tiles "Checkpoints": the signed note of the tree at the latest approved position."""
    return Response(ledger_queries.signed_note(), media_type="text/plain")


@get(
    "/tile/{level:str}/{index:path}",
    sync_to_thread=True,
    responses=problems(404, 503),
    media_type="application/octet-stream",
)
def hash_tile(
    ledger_queries: NamedDependency[LedgerQueries], level: FromPath[str], index: FromPath[str]
) -> Response[bytes]:
    """tlog-tiles "Merkle Tree": `<L>/<N>[.p/<W>]`, N written as `x001/x234/067`; immutable."""
    if level == "entries":
        raise NotFound(
            "entry bundles are not public: the leaves come in an export or an audit bundle, "
            "checked against these tiles"
        )
    try:
        tile = parse_tile(level, index.lstrip("/"))
    except TileError as e:
        raise NotFound(f"no tile at {level}{index}: {e}") from e
    return Response(
        ledger_queries.tile(tile),
        media_type="application/octet-stream",
        headers={"Cache-Control": IMMUTABLE.decode()},
    )


router = Router("/", route_handlers=[checkpoint_note, hash_tile])
