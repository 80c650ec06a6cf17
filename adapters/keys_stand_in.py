"""A local stand-in for OpenRouter's key-management API (tests and the demo), on 127.0.0.1.

It speaks the same protocol under `/api/v1`: `POST /keys` (201, the secret `sk-or-v1-...` only
in that answer), `GET /keys` (`{"data": [...]}`, 100 a page by `offset`), `GET|DELETE
/keys/{hash}`, every call with `Authorization: Bearer <management token>`. A tiny model endpoint
(`POST /chat/completions`, `GET /key`) answers a run's own key: 401 once the key is deleted or
expired, 402 over its limit. Switches (`POST /_stand-in/switches`, or `.switches` in process)
make creation fail or stall, deletion slow, or every management call refused; `GET
/_stand-in/requests` lists what was asked, with the key hash a model call carried.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PREFIX = "/api/v1"
COST_PER_CALL = 0.25
"""What one model call spends, in USD (so a 3 USD key answers 402 after 12 calls)."""


@dataclass
class Switches:
    fail_create: int = 0
    """An HTTP status every creation answers with instead of a key (0: create)."""
    create_delay: float = 0
    """Seconds before answering a creation, after the key was made (a stalled API)."""
    delete_delay: float = 0
    refuse: bool = False
    """Every management call answers 503."""


@dataclass
class StoredKey:
    hash: str
    name: str
    limit: float | None
    expires_at: datetime | None
    secret: str
    created_at: datetime
    usage: float = 0.0
    deleted: bool = False

    def document(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "name": self.name,
            "label": f"{self.secret[:12]}...{self.secret[-3:]}",
            "disabled": False,
            "limit": self.limit,
            "limit_remaining": None if self.limit is None else max(0.0, self.limit - self.usage),
            "limit_reset": None,
            "include_byok_in_limit": False,
            "usage": self.usage,
            "created_at": _z(self.created_at),
            "updated_at": None,
            "expires_at": None if self.expires_at is None else _z(self.expires_at),
        }


def _z(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@dataclass
class Request:
    method: str
    path: str
    status: int
    key_hash: str | None = None
    at: float = field(default_factory=time.time)


class KeyStandIn(ThreadingHTTPServer):
    """The server; `serve_forever()` in a thread, `url` ends with `/api/v1`."""

    daemon_threads = True

    def __init__(self, token: str, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.token = token
        self.switches = Switches()
        self.keys: dict[str, StoredKey] = {}
        self.requests: list[Request] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{PREFIX}"

    def start(self) -> KeyStandIn:
        threading.Thread(
            target=self.serve_forever, args=(0.05,), daemon=True, name="key-stand-in"
        ).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def live_keys(self) -> list[StoredKey]:
        with self.lock:
            return [k for k in self.keys.values() if not k.deleted]

    def secret_of(self, key_hash: str) -> str:
        """For tests: the secret a key was created with."""
        return self.keys[key_hash].secret


class _Handler(BaseHTTPRequestHandler):
    server: KeyStandIn
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request list is the log (it never holds a secret)."""

    def _send(self, status: int, document: Any, key_hash: str | None = None) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)  # unless the client gave up waiting (its bound)
        with self.server.lock:
            path = urlsplit(self.path).path
            self.server.requests.append(Request(self.command, path, status, key_hash))

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            parsed = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    def _bearer(self) -> str:
        header = self.headers.get("Authorization", "")
        return header.removeprefix("Bearer ") if header.startswith("Bearer ") else ""

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def do_DELETE(self) -> None:
        self._route("DELETE")

    def _route(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith("/_stand-in/"):
            return self._control(method, path)
        if path in (f"{PREFIX}/chat/completions", f"{PREFIX}/key"):
            return self._model(method, path)
        if not path.startswith(f"{PREFIX}/keys"):
            return self._error(404, "Not Found")
        if not secrets.compare_digest(self._bearer(), self.server.token):
            return self._error(401, "No auth credentials found")
        if self.server.switches.refuse:
            return self._error(503, "refused (stand-in switch)")
        rest = path[len(f"{PREFIX}/keys") :].strip("/")
        handlers: dict[tuple[str, bool], Callable[[], None]] = {
            ("POST", False): self._create,
            ("GET", False): lambda: self._list(parse_qs(parts.query)),
            ("GET", True): lambda: self._get(rest),
            ("DELETE", True): lambda: self._delete(rest),
        }
        handler = handlers.get((method, bool(rest)))
        return handler() if handler else self._error(405, "Method Not Allowed")

    def _error(self, status: int, message: str, key_hash: str | None = None) -> None:
        self._send(status, {"error": {"code": status, "message": message}}, key_hash)

    def _control(self, method: str, path: str) -> None:
        if not secrets.compare_digest(self._bearer(), self.server.token):
            return self._error(401, "No auth credentials found")
        if path == "/_stand-in/switches" and method == "POST":
            return self._set_switches()
        if path == "/_stand-in/requests" and method == "GET":
            with self.server.lock:
                requests = [asdict(r) for r in self.server.requests]
            return self._send(200, {"data": requests})
        return self._error(404, "Not Found")

    def _set_switches(self) -> None:
        for name, value in self._body().items():
            if hasattr(self.server.switches, name):
                setattr(self.server.switches, name, value)
        return self._send(200, asdict(self.server.switches))

    def _create(self) -> None:
        switches = self.server.switches
        if switches.fail_create:
            return self._error(switches.fail_create, "creation failed (stand-in switch)")
        body = self._body()
        name, limit, expires = body.get("name"), body.get("limit"), body.get("expires_at")
        if not isinstance(name, str) or not name:
            return self._error(400, "name is required")
        expires_at = None
        if expires is not None:
            if not (isinstance(expires, str) and expires.endswith("Z")):
                return self._error(400, "expires_at must be UTC")
            expires_at = datetime.fromisoformat(expires)
        secret = "sk-or-v1-" + secrets.token_hex(32)
        stored = StoredKey(
            hash=hashlib.sha256(secret.encode()).hexdigest(),
            name=name,
            limit=float(limit) if isinstance(limit, int | float) else None,
            expires_at=expires_at,
            secret=secret,
            created_at=datetime.now(UTC),
        )
        with self.server.lock:
            self.server.keys[stored.hash] = stored
        time.sleep(switches.create_delay)
        return self._send(201, {"data": stored.document(), "key": secret})

    def _list(self, query: dict[str, list[str]]) -> None:
        offset = int(query.get("offset", ["0"])[0] or 0)
        live = self.server.live_keys()
        return self._send(200, {"data": [k.document() for k in live[offset : offset + 100]]})

    def _found(self, key_hash: str) -> StoredKey | None:
        with self.server.lock:
            stored = self.server.keys.get(key_hash)
        return None if stored is None or stored.deleted else stored

    def _get(self, key_hash: str) -> None:
        stored = self._found(key_hash)
        if stored is None:
            return self._error(404, "Key not found")
        return self._send(200, {"data": stored.document()})

    def _delete(self, key_hash: str) -> None:
        time.sleep(self.server.switches.delete_delay)
        stored = self._found(key_hash)
        if stored is None:
            return self._error(404, "Key not found")
        stored.deleted = True
        return self._send(200, {"deleted": True})

    def _model(self, method: str, path: str) -> None:
        """A run's key at work: 401 when unknown, deleted or expired; 402 over its limit."""
        secret = self._bearer()
        key_hash = hashlib.sha256(secret.encode()).hexdigest()
        stored = self._found(key_hash)
        now = datetime.now(UTC)
        if stored is None or (stored.expires_at is not None and now >= stored.expires_at):
            return self._error(401, "User not found.", key_hash)
        if path.endswith("/key"):
            return self._send(200, {"data": stored.document()}, key_hash)
        if method != "POST":
            return self._error(405, "Method Not Allowed")
        if stored.limit is not None and stored.usage + COST_PER_CALL > stored.limit:
            return self._error(402, "Insufficient credits", key_hash)
        stored.usage += COST_PER_CALL
        answer = {
            "choices": [{"message": {"role": "assistant", "content": "ok"}}],
            "usage": {"cost": COST_PER_CALL},
        }
        return self._send(200, answer, key_hash)
