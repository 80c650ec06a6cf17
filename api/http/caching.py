"""Public answers as HTTP caches them (docs/api.md, "Caching"): every answer to a GET carries a
strong `ETag` and honours `If-None-Match` (304); `HEAD` is answered wherever `GET` is, with the
same headers and no body; an answer as of an explicit `?as_of=` is immutable, the latest one
may be kept a few seconds. An answer as of an approved position is a function of that position,
the path and query, and what the client accepts, so each is made once per position and then
served from memory (`Answers`), the latest ones keyed by the approved position they were made
at. Bodies are compressed here, deterministically (gzip without a timestamp), so that the same
answer is the same bytes, and the same `ETag`, whenever it is asked."""

from __future__ import annotations

import hashlib
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast
from urllib.parse import parse_qsl

import anyio
import anyio.to_thread
from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.services.queries import ANSWERING_AS_OF

IMMUTABLE = b"public, max-age=31536000, immutable"
"""An answer as of an explicit approved position or tree size, or a tile: never changes."""
LATEST_SECONDS = 10
"""How long an answer as of the latest approved position may be kept: a new approval shows
within this many seconds (docs/decisions.md)."""
LATEST = f"public, max-age={LATEST_SECONDS}".encode()
MEMO_BYTES = 64 * 2**20
"""Answers kept in memory, at most this many bytes in all, the least recently asked dropped
first."""
HELD_MOST = 2**20
"""A larger body is not held (nor kept, nor compressed): it is sent on as it comes."""
GZIP_LEAST = 1_400
"""A smaller body is sent as it is: it fits one TCP segment on an Ethernet link, so compressing
it saves no round trip (and costs each answer made, an inclusion proof's in particular)."""
COMPRESSED = (
    b"text/",
    b"application/json",
    b"application/jsonl",
    b"application/javascript",
    b"application/x-asciicast",
)
"""The media types worth compressing (hashes are not)."""
UNCACHED = frozenset({"/healthz"})
"""Paths whose every answer is made afresh: the health check reads the database each time."""

Raw = list[tuple[bytes, bytes]]
Event = dict[str, Any]
"""An ASGI message as this module reads and makes it."""


def _gzip(body: bytes) -> bytes:
    """gzip with no timestamp in its header (zlib's), so the same body gives the same bytes."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(body) + compressor.flush()


def _compressible(headers: Raw) -> bool:
    media = next((v for k, v in headers if k == b"content-type"), b"")
    return media.startswith(COMPRESSED)


def _accepts_gzip(scope: Scope) -> bool:
    accepted = Headers.from_scope(scope).get("accept-encoding", "")
    for coding in accepted.lower().split(","):
        name, _, weight = coding.strip().partition(";")
        if name.strip() == "gzip":
            return weight.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def matches(if_none_match: str | None, etag: bytes) -> bool:
    """RFC 9110 13.1.2: `If-None-Match` compares entity tags weakly, and `*` matches any."""
    if not if_none_match:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in tags or etag.decode().removeprefix("W/") in tags


class Answer(NamedTuple):
    """One made answer: its status and headers as the application sent them (without a length,
    an encoding or a tag), its body, and the body gzipped when it is worth it."""

    status: int
    headers: Raw
    body: bytes
    gzipped: bytes | None
    etag: bytes

    @classmethod
    def made(cls, status: int, headers: Raw, body: bytes) -> Answer:
        kept = [(k, v) for k, v in headers if k not in (b"content-length", b"content-encoding")]
        given = next((v for k, v in kept if k == b"etag"), None)
        kept = [(k, v) for k, v in kept if k != b"etag"]
        etag = given or b'"' + hashlib.sha256(body).hexdigest()[:40].encode() + b'"'
        worth = len(body) >= GZIP_LEAST and _compressible(kept)
        return cls(status, kept, body, _gzip(body) if worth else None, etag)

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gzipped or b"")


class Answers:
    """Answers already made, by request and approved position, at most `MEMO_BYTES` in all."""

    def __init__(self, most: int = MEMO_BYTES) -> None:
        self.most = most
        self._answers: OrderedDict[tuple[object, ...], Answer] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> Answer | None:
        with self._lock:
            answer = self._answers.get(key)
            if answer is not None:
                self._answers.move_to_end(key)
            return answer

    def put(self, key: tuple[object, ...], answer: Answer) -> None:
        with self._lock:
            if key in self._answers or answer.size > self.most:
                return
            self._answers[key] = answer
            self._bytes += answer.size
            while self._bytes > self.most:
                _, dropped = self._answers.popitem(last=False)
                self._bytes -= dropped.size


PINNING = frozenset({"as_of", "size", "second"})
"""Query parameters that name the approved position or the approved tree an answer is of:
an answer with one of them is the same whatever is approved later."""


def _pinned(scope: Scope) -> bool:
    """Whether the request names the position or tree size it answers as of."""
    query = scope["query_string"].decode("latin-1")
    return "=" in query and any(name in PINNING for name, _ in parse_qsl(query))


CODE_STATED = frozenset({"/methodology"})
"""Answers that state the running release's rules and configuration beside the ledger's: the
same for a position only until the next release, so never marked immutable."""


def _cache_control(scope: Scope) -> bytes:
    return IMMUTABLE if _pinned(scope) and scope["path"] not in CODE_STATED else LATEST


async def send_answer(scope: Scope, send: Send, answer: Answer, head: bool) -> None:
    """`answer` as the client asked: gzipped if it accepts it, 304 if it holds the same
    representation already, its headers alone for a HEAD."""
    gzipped = answer.gzipped is not None and _accepts_gzip(scope)
    body = answer.gzipped if gzipped and answer.gzipped is not None else answer.body
    etag = answer.etag[:-1] + b'-gzip"' if gzipped else answer.etag
    headers = [*answer.headers, (b"etag", etag)]
    if answer.gzipped is not None:
        headers.append((b"vary", b"Accept-Encoding"))
    if answer.status == 200 and all(k != b"cache-control" for k, _ in headers):
        headers.append((b"cache-control", _cache_control(scope)))
    if answer.status == 200 and matches(Headers.from_scope(scope).get("if-none-match"), etag):
        kept = [(k, v) for k, v in headers if k != b"content-type"]
        await send({"type": "http.response.start", "status": 304, "headers": kept})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    if gzipped:
        headers.append((b"content-encoding", b"gzip"))
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body, "more_body": False})


class _Streamed:
    """An answer too large to hold (a large file): sent on as it comes, tagged only when the
    application tagged it (a file, by its SHA-256), a 304 when the client holds that tag."""

    def __init__(self, scope: Scope, send: Send, head: bool) -> None:
        self.scope, self.send, self.head = scope, send, head
        self.silent = head

    async def start(self, message: Event) -> None:
        headers: Raw = list(message["headers"])
        status = message["status"]
        etag = next((v for k, v in headers if k == b"etag"), None)
        if status == 200 and all(k != b"cache-control" for k, _ in headers):
            headers.append((b"cache-control", _cache_control(self.scope)))
        held = Headers.from_scope(self.scope).get("if-none-match")
        if status == 200 and etag is not None and matches(held, etag):
            self.silent = True
            status = 304
            headers = [(k, v) for k, v in headers if k not in (b"content-type", b"content-length")]
        await self.send(cast("Message", {**message, "status": status, "headers": headers}))

    async def body(self, message: Event) -> None:
        if not self.silent:
            await self.send(cast("Message", message))
        elif not message.get("more_body", False):
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})


class _Made:
    """What the application sends for one GET: gathered into an `Answer` when whole, or, past
    `HELD_MOST` bytes, sent on as it comes (`_Streamed`)."""

    def __init__(self, scope: Scope, send: Send, head: bool) -> None:
        self.scope, self.send, self.head = scope, send, head
        self.start: Event = {}
        self.chunks: list[bytes] = []
        self.held = 0
        self.streamed: _Streamed | None = None
        self.answer: Answer | None = None

    async def __call__(self, sent: Message) -> None:
        message = cast("Event", sent)
        if message["type"] == "http.response.start":
            self.start = message
        elif message["type"] != "http.response.body":
            await self.send(sent)
        elif self.streamed is not None:
            await self.streamed.body(message)
        else:
            await self._held(message)

    async def _held(self, message: Event) -> None:
        body, more = message.get("body", b""), message.get("more_body", False)
        self.chunks.append(body)
        self.held += len(body)
        if not more:
            start, whole = self.start, b"".join(self.chunks)
            self.answer = Answer.made(start["status"], start["headers"], whole)
            await send_answer(self.scope, self.send, self.answer, self.head)
        elif self.held > HELD_MOST:
            self.streamed = _Streamed(self.scope, self.send, self.head)
            await self.streamed.start(self.start)
            for chunk in self.chunks:
                await self.streamed.body(
                    {"type": "http.response.body", "body": chunk, "more_body": True}
                )
            self.chunks = []


Position = Callable[[], int]
"""The latest approved position, which the answers to requests without `as_of` are as of."""


@dataclass
class _Read:
    """One read of the latest approved position, and those waiting for it."""

    done: anyio.Event = field(default_factory=anyio.Event)
    position: int | None = None


class SharedRead:
    """The latest approved position, read once for every request that asked before the read
    began: a request still sees every approval committed before it came (it never takes a read
    already under way), and however many wait, the database is asked once per round. One event
    loop's (a server process's): it takes no lock."""

    def __init__(self, read: Callable[[], int | None]) -> None:
        self._read = read
        self._next: _Read | None = None
        """The read not yet begun, which whoever asks now joins."""
        self._running: _Read | None = None

    async def __call__(self) -> int | None:
        """The position, None with the database away (or the read cut off)."""
        mine = self._next = self._next or _Read()
        while not mine.done.is_set():
            if self._running is None:
                await self._run(mine)
            else:
                await self._running.done.wait()
        return mine.position

    async def _run(self, read: _Read) -> None:
        self._next, self._running = None, read
        try:
            read.position = await anyio.to_thread.run_sync(self._read)
        finally:
            self._running = None
            read.done.set()


def cached(app: ASGIApp, position: Position, answers: Answers | None = None) -> ASGIApp:
    """`app` with its GET answers tagged, conditional, compressed and kept per approved
    position, and HEAD answered as GET without the body."""
    memo = answers or Answers()

    def pinned_key(scope: Scope) -> tuple[object, ...]:
        """The key of an answer that is the same whatever is approved later: named by its
        position (`PINNING`), or immutable of itself (a tile)."""
        accept = Headers.from_scope(scope).get("accept", "")
        return (scope["path"], scope["query_string"], accept, "pinned")

    def latest_position() -> int | None:
        """The latest approved position, read off the ledger (in a thread: it asks the
        database); None with the database away."""
        try:
            return position()
        except Exception:  # the database away: the application answers why
            return None

    shared_latest = SharedRead(latest_position)

    async def known(scope: Scope) -> tuple[tuple[object, ...] | None, Answer | None, int | None]:
        """The request's key, the answer kept under it, if any, and the latest approved position
        the key names: none of them for a path made afresh each time."""
        if scope["path"] in UNCACHED:
            return None, None, None
        pinned = pinned_key(scope)
        known = memo.get(pinned)
        if known is not None or _pinned(scope):
            return pinned, known, None
        latest = await shared_latest()
        if latest is None:
            return None, None, None
        asked = (*pinned[:-1], latest)
        return asked, memo.get(asked), latest

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] not in ("GET", "HEAD"):
            await app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        scope = {**scope, "method": "GET"} if head else scope
        asked, kept, latest = await known(scope)
        if kept is not None:
            await send_answer(scope, send, kept, head)
            return
        made = _Made(scope, send, head)
        answering = ANSWERING_AS_OF.set(latest)  # made as of the position it is kept under
        try:
            await app(scope, receive, made)
        finally:
            ANSWERING_AS_OF.reset(answering)
        answer = made.answer
        if answer is None or answer.status != 200 or asked is None:
            return
        memo.put(
            pinned_key(scope) if (b"cache-control", IMMUTABLE) in answer.headers else asked, answer
        )

    return serve
