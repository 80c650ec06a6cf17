"""A local HTTP server for the source tests (127.0.0.1, a free port): it serves files (by default
the real ones of reference/data) with ETag and Last-Modified, answers conditional requests with
304, and has switches to change, shrink, reformat or fail a file. It also answers the two
GitHub calls the fetcher makes (a branch's commit, a file at a commit).
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

OPENROUTER_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "openrouter" / "benchmarks"
"""OpenRouter's `benchmarks` dataset as our tests make it (no real export is at hand): a fixture
in the contract's form, never served as real data (tests/fixtures/openrouter/README.md)."""
HTML_ERROR = (
    b"<!DOCTYPE html>\n<html><head><title>Oops</title></head>"
    b"<body>Something went wrong, try again later.</body></html>\n"
)
START = datetime(2026, 11, 1, tzinfo=UTC)


def epoch_zip(folder: Path, replace: dict[str, bytes] | None = None) -> bytes:
    """Epoch's benchmark_data.zip as Epoch publishes it (the CSVs at its root), built from an
    unzipped copy, byte for byte the same on every call; `replace` swaps members' bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            info = zipfile.ZipInfo(name, date_time=(2026, 4, 17, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (replace or {}).get(name, path.read_bytes()))
    return buffer.getvalue()


@dataclass
class Served:
    body: bytes
    content_type: str = "application/octet-stream"
    status: int = 200
    version: int = 0
    delay: float = 0.0

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'

    @property
    def last_modified(self) -> str:
        return format_datetime(START + timedelta(hours=self.version), usegmt=True)


@dataclass
class SourceServer:
    files: dict[str, Served] = field(default_factory=dict)
    commits: dict[tuple[str, str], str] = field(default_factory=dict)
    log: list[tuple[str, int]] = field(default_factory=list)
    base: str = ""

    def put(self, path: str, body: bytes, content_type: str = "application/octet-stream") -> str:
        """Serve `body` at `path` (a new version: new ETag and Last-Modified); its address."""
        old = self.files.get(path)
        version = old.version + 1 if old else 0
        self.files[path] = Served(body, content_type, 200, version)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def change(self, path: str, body: bytes) -> None:
        self.put(path, body, self.files[path].content_type)

    def shrink(self, path: str, keep: float = 0.5) -> None:
        """Keep the first part of a CSV's lines (the header and a share of its rows)."""
        lines = self.files[path].body.splitlines(keepends=True)
        self.change(path, b"".join(lines[: 1 + int((len(lines) - 1) * keep)]))

    def truncate(self, path: str, keep: float = 0.6) -> None:
        """Cut the file off part way (a transfer that stopped)."""
        body = self.files[path].body
        self.change(path, body[: int(len(body) * keep)])

    def reformat(self, path: str, old: bytes, new: bytes) -> None:
        """Rename a column (or change any text) in the file's first line."""
        head, _, rest = self.files[path].body.partition(b"\n")
        self.change(path, head.replace(old, new) + b"\n" + rest)

    def html_page(self, path: str) -> None:
        """An HTML error page served with status 200 in place of the file."""
        self.put(path, HTML_ERROR, "text/html; charset=utf-8")

    def fail(self, path: str, status: int = 503) -> None:
        self.files[path].status = status

    def slow(self, path: str, seconds: float) -> None:
        """Wait before answering (a server that hangs)."""
        self.files[path].delay = seconds

    def statuses(self, path: str) -> list[int]:
        return [status for p, status in self.log if p == path]


def _handler(server: SourceServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.lstrip("/")
            if path.startswith("github-api/repos/"):
                return self._commit(path.removeprefix("github-api/repos/"))
            served = server.files.get(path)
            if served is None:
                return self._send(path, 404, b"not found", "text/plain", {})
            if served.delay:
                time.sleep(served.delay)
            if served.status != 200:
                return self._send(path, served.status, b"unavailable", "text/plain", {})
            headers = {"ETag": served.etag, "Last-Modified": served.last_modified}
            if self._not_modified(served):
                return self._send(path, 304, b"", None, headers)
            return self._send(path, 200, served.body, served.content_type, headers)

        def _not_modified(self, served: Served) -> bool:
            match = self.headers.get("If-None-Match")
            if match is not None:
                return served.etag in [m.strip() for m in match.split(",")]
            return self.headers.get("If-Modified-Since") == served.last_modified

        def _commit(self, rest: str) -> None:
            repo, _, ref = rest.partition("/commits/")
            commit = server.commits.get((repo, ref))
            if commit is None:
                return self._send(self.path, 404, b"no such ref", "text/plain", {})
            return self._send(self.path, 200, commit.encode(), "text/plain", {})

        def _send(
            self, path: str, status: int, body: bytes, kind: str | None, headers: dict[str, str]
        ) -> None:
            server.log.append((path, status))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if kind:
                self.send_header("Content-Type", kind)
            if status != 304:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status != 304:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


class QuietServer(ThreadingHTTPServer):
    """A client that stops reading (the size bound, a timeout) is not an error here."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def serving(server: SourceServer | None = None) -> Iterator[SourceServer]:
    """Run the server on 127.0.0.1 at a free port for the duration of the block."""
    state = server or SourceServer()
    httpd = QuietServer(("127.0.0.1", 0), _handler(state))
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def github_raw(server: SourceServer, repo: str, commit: str, path: str, body: bytes) -> None:
    """Serve `body` as `path` of `repo` at `commit` the way raw.githubusercontent.com does."""
    server.put(f"github-raw/{repo}/{commit}/{path}", body)


def openrouter_benchmarks_fixture(server: SourceServer, *days: str) -> str:
    """Serve the fixture of OpenRouter's `benchmarks` dataset under `/fixture/openrouter/` (a
    manifest naming each dated file given, by its SHA-256): the address a sources.toml names
    for it, the manifest's with `#benchmarks`."""
    files = []
    for day in days or ("2026-11-30",):
        body = (OPENROUTER_FIXTURE / f"{day}.json").read_bytes()
        server.put(f"fixture/openrouter/benchmarks/{day}.json", body, "application/json")
        digest = hashlib.sha256(body).hexdigest()
        url = f"benchmarks/{day}.json"
        files.append({"date": day, "dataset": "benchmarks", "url": url, "sha256": digest})
    manifest = json.dumps({"files": files}).encode()
    server.put("fixture/openrouter/manifest.json", manifest, "application/json")
    return server.url("fixture/openrouter/manifest.json") + "#benchmarks"
