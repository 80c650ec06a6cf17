"""A stand-in for the part of GitHub's REST API the project pool reads (127.0.0.1, a free port):
the repository search with `page`/`per_page` pagination and `created:>DATE`, and per repository
its record, languages, README (404 when there is none) and a branch's head commit; ETags and
304s; switches for a rate limit (403 with `x-ratelimit-reset`), a 5xx, a body that is not JSON
and a listing that changes between pages. Its repositories are synthetic, made from a seed."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

LICENCES = ["MIT", "Apache-2.0", "BSD-3-Clause", "GPL-3.0", "AGPL-3.0", "NOASSERTION", None]
LANGUAGES = ["Python", "Rust", "Go", "TypeScript", "C", "Java", "Ruby", "Shell"]
READMES = [
    "# {name}\n\nRuns fully offline; no account needed.\n",
    "# {name}\n\nA small library.\n",
    "# {name}\n\nRequires a paid account: sign up at example.com.\n",
]
TODAY = date(2026, 12, 1)


@dataclass
class Repo:
    name: str
    stars: int
    created: date
    licence: str | None
    languages: dict[str, int]
    readme: str | None
    archived: bool
    size_kb: int
    commit: str

    def record(self) -> dict[str, Any]:
        licence = None if self.licence is None else {"spdx_id": self.licence, "key": "x"}
        return {
            "full_name": self.name,
            "stargazers_count": self.stars,
            "created_at": f"{self.created}T08:00:00Z",
            "pushed_at": f"{TODAY - timedelta(days=1)}T09:00:00Z",
            "archived": self.archived,
            "default_branch": "main",
            "size": self.size_kb,
            "license": licence,
            "language": max(self.languages, key=self.languages.__getitem__, default=None),
        }


def synthetic(count: int = 200, seed: int = 30) -> list[Repo]:
    """`count` repositories with licences, languages, dates, sizes and archived flags mixed."""
    rng = random.Random(seed)
    repos = []
    for n in range(count):
        name = f"maker{n % 37:02d}/tool-{n:03d}"
        langs = rng.sample(LANGUAGES, rng.choice([1, 1, 2, 3]))
        readme = rng.choice([*READMES, None]) if n % 11 else None
        repos.append(
            Repo(
                name=name,
                stars=rng.randint(50, 50_000),
                created=TODAY - timedelta(days=rng.randint(1, 75)),
                licence=rng.choice(LICENCES),
                languages={lang: rng.randint(1_000, 900_000) for lang in langs},
                readme=None if readme is None else readme.format(name=name),
                archived=rng.random() < 0.05,
                size_kb=rng.choice([300, 4_000, 60_000, 200_000, 600_000]),
                commit=hashlib.sha1(name.encode()).hexdigest(),
            )
        )
    return repos


@dataclass
class Switches:
    rate_limit_after: int | None = None
    """Answer every request after this many with a 403 rate limit."""
    reset_at: int = 1_800_000_000
    fail_path: str | None = None
    """Answer this path (a prefix) with a 502."""
    malformed_path: str | None = None
    """Answer this path (a prefix) with a body that is not JSON."""
    shrink_after_page: int | None = None
    """From the page after this one, drop a tenth of the listing (and its announced total)."""
    requests: list[str] = field(default_factory=list)
    not_modified: int = 0
    """How many conditional requests were answered 304."""


class GitHubStandIn:
    def __init__(self, repos: list[Repo]) -> None:
        self.repos = {r.name: r for r in repos}
        self.switches = Switches()
        self.url = ""

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, bytes, dict[str, str]]:
        s = self.switches
        s.requests.append(path)
        if s.rate_limit_after is not None and len(s.requests) > s.rate_limit_after:
            headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(s.reset_at)}
            return 403, b'{"message": "API rate limit exceeded"}', headers
        if s.fail_path and path.startswith(s.fail_path):
            return 502, b'{"message": "Server Error"}', {}
        if s.malformed_path and path.startswith(s.malformed_path):
            return 200, b'{"total_count": 3, "items": [', {}
        if path == "/search/repositories":
            return self._search(query)
        return self._repository(path)

    def _repository(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        parts = [unquote(p) for p in path.split("/")[2:]]
        repo = self.repos.get("/".join(parts[:2])) if path.startswith("/repos/") else None
        body: Any = None
        match repo, parts[2:]:
            case Repo(), []:
                body = repo.record()
            case Repo(), ["languages"]:
                body = repo.languages
            case Repo(readme=str(readme)), ["readme"]:
                content = base64.b64encode(readme.encode()).decode()
                body = {"name": "README.md", "encoding": "base64", "content": content}
            case Repo(), ["commits", "main"]:
                body = {"sha": repo.commit}
        if body is None:
            return 404, b'{"message": "Not Found"}', {}
        return _json(body)

    def _search(self, query: dict[str, list[str]]) -> tuple[int, bytes, dict[str, str]]:
        since = date.fromisoformat(query["q"][0].removeprefix("created:>"))
        page, per_page = int(query.get("page", ["1"])[0]), int(query.get("per_page", ["30"])[0])
        found = sorted(
            (r for r in self.repos.values() if r.created > since), key=lambda r: -r.stars
        )
        shrink = self.switches.shrink_after_page
        if shrink is not None and page > shrink:
            found = found[: len(found) * 9 // 10]
        items = [r.record() for r in found[(page - 1) * per_page : page * per_page]]
        return _json({"total_count": len(found), "incomplete_results": False, "items": items})


def _json(body: Any) -> tuple[int, bytes, dict[str, str]]:
    return 200, json.dumps(body, sort_keys=True).encode(), {}


@contextmanager
def serving(stand_in: GitHubStandIn) -> Iterator[GitHubStandIn]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            split = urlsplit(self.path)
            status, body, headers = stand_in.answer(split.path, parse_qs(split.query))
            etag = '"' + hashlib.sha256(body).hexdigest()[:24] + '"'
            if status == 200 and self.headers.get("If-None-Match") == etag:
                stand_in.switches.not_modified += 1
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if status == 200:
                self.send_header("ETag", etag)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()
