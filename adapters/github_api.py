"""GitHub's REST API, the part the project pool reads (methodology sections 3 and 6): the search
for repositories created since a date, and per repository its description, languages, README
and the head commit of its default branch (ARCHITECTURE.md, Wave 3 contract, "Project pool").

Every answer's body is archived under its SHA-256 before it is read, and requests are
conditional on what an earlier round archived (`If-None-Match`): a 304 is read from the archive.
A rate limit (403 or 429 with `x-ratelimit-reset`), another status, a body that is not JSON or a
network error raises `ApiFailure`, naming the address and, for a rate limit, when to try again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, NamedTuple, Protocol, TypeVar
from urllib.parse import quote, urlencode

import httpx
import msgspec

from domain.events.pool import ApiAnswer, Candidate, Repository
from domain.pool import Listing, runs_without_paid_accounts

USER_AGENT = "argusic-pool/1.0 (+https://argusic.local/pool)"
T = TypeVar("T")
MAX_BYTES = 16 << 20
"""The most a single answer may hold (a README is served base64-encoded)."""


class Archive(Protocol):
    def put_stream(self, chunks: Iterable[bytes]) -> Any: ...

    def read(self, sha256: str) -> Iterator[bytes]: ...


class Answer(NamedTuple):
    """One address read: `body` None for a 404 (a repository without a README)."""

    url: str
    status: int
    sha256: str | None
    etag: str | None
    body: Any


class ApiFailure(Exception):
    """The API could not be read now; `retry_at` says when, for a rate limit."""

    def __init__(self, url: str, failure: str, retry_at: datetime | None = None) -> None:
        super().__init__(f"{url}: {failure}")
        self.url, self.failure, self.retry_at = url, failure, retry_at


class GitHubApi:
    """One client for a round of reads (connections reused), bounded in time and size."""

    def __init__(
        self,
        base: str,
        archive: Archive,
        *,
        token: str | None = None,
        held: Mapping[str, ApiAnswer] | None = None,
        timeout_seconds: float = 30.0,
    ) -> None:
        self.base = base.rstrip("/")
        self.archive = archive
        self.held = dict(held or {})
        headers = {"User-Agent": USER_AGENT, "Accept": "application/vnd.github+json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.client = httpx.Client(timeout=timeout_seconds, headers=headers)
        self.answers: list[Answer] = []
        """Every answer of the round, in order (what the round records)."""

    def __enter__(self) -> GitHubApi:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.client.close()

    def listing(self, since: str, page: int, per_page: int = 100) -> Listing:
        """One page of the search: the total it announces and the repositories on it."""
        found = _typed(self, self.search(since, page, per_page), _Listing)
        return Listing(found.total_count, [item.full_name for item in found.items])

    def candidate(self, project: str) -> Candidate:
        return candidate(self, project)

    def search(self, since: str, page: int, per_page: int = 100) -> Any:
        query = {"q": f"created:>{since}", "sort": "stars", "order": "desc"}
        return self.get("/search/repositories", {**query, "per_page": per_page, "page": page})

    def repository(self, project: str) -> Any:
        return self.get(f"/repos/{_path(project)}")

    def languages(self, project: str) -> Any:
        return self.get(f"/repos/{_path(project)}/languages")

    def readme(self, project: str) -> Any:
        """The README's record (`content` base64), or None: a 404 means there is none."""
        return self.get(f"/repos/{_path(project)}/readme", missing_ok=True)

    def head_commit(self, project: str, branch: str) -> Any:
        return self.get(f"/repos/{_path(project)}/commits/{quote(branch, safe='')}")

    def get(
        self, path: str, params: Mapping[str, Any] | None = None, *, missing_ok: bool = False
    ) -> Any:
        url = self.base + path + (f"?{urlencode(params)}" if params else "")
        held = self.held.get(url)
        headers = {"If-None-Match": held.etag} if held and held.etag else {}
        try:
            with self.client.stream("GET", url, headers=headers) as response:
                answer = self._answer(url, response, held, missing_ok)
        except httpx.HTTPError as e:
            raise ApiFailure(url, f"{type(e).__name__}: {e or 'no answer'}") from e
        self.answers.append(answer)
        return answer.body

    def _answer(
        self, url: str, response: httpx.Response, held: ApiAnswer | None, missing_ok: bool
    ) -> Answer:
        status = response.status_code
        if status in (403, 429) and (reset := response.headers.get("x-ratelimit-reset")):
            retry_at = datetime.fromtimestamp(int(reset), UTC) if reset.isdigit() else None
            raise ApiFailure(url, f"rate limited (HTTP {status})", retry_at)
        if status == 404 and missing_ok:
            return Answer(url, 404, None, None, None)
        if status == 304 and held is not None and held.sha256:
            raw = b"".join(self.archive.read(held.sha256))
            return Answer(url, 304, held.sha256, held.etag, _json(url, raw))
        if status != 200:
            raise ApiFailure(url, f"HTTP status {status}")
        raw = _bounded(url, response)
        self.archive.put_stream([raw])
        sha256 = hashlib.sha256(raw).hexdigest()
        return Answer(url, 200, sha256, response.headers.get("ETag"), _json(url, raw))


class _Licence(msgspec.Struct):
    spdx_id: str | None = None


class _Repository(msgspec.Struct):
    full_name: Repository
    stargazers_count: int
    created_at: datetime
    pushed_at: datetime
    archived: bool
    default_branch: str
    size: int
    license: _Licence | None = None


class _Readme(msgspec.Struct):
    content: str = ""
    encoding: str = "base64"


class _Commit(msgspec.Struct):
    sha: str


class _Listing(msgspec.Struct):
    total_count: int
    items: list[_Repository]


def candidate(api: GitHubApi, project: str) -> Candidate:
    """A repository as the API describes it now: metadata, languages, README and head commit."""
    repository = _typed(api, api.repository(project), _Repository)
    languages = _typed(api, api.languages(project), dict[str, int])
    readme = api.readme(project)
    text = None if readme is None else _readme_text(_typed(api, readme, _Readme))
    commit = _typed(api, api.head_commit(project, repository.default_branch), _Commit)
    try:
        fields = {
            "project": repository.full_name,
            "stars": repository.stargazers_count,
            "created_at": repository.created_at.date(),
            "pushed_at": repository.pushed_at.date(),
            "license": repository.license.spdx_id if repository.license else None,
            "languages": languages,
            "readme": readme is not None,
            "archived": repository.archived,
            "default_branch": repository.default_branch,
            "commit": commit.sha,
            "size_kb": repository.size,
            "no_paid_accounts": runs_without_paid_accounts(text),
        }
        return msgspec.convert(fields, Candidate)  # the names and the commit checked
    except msgspec.ValidationError as e:
        raise ApiFailure(api.answers[-1].url, f"a malformed answer for {project}: {e}") from e


def _typed(api: GitHubApi, body: Any, kind: type[T]) -> T:
    """An answer's body in the form expected, or an `ApiFailure` naming where it broke."""
    try:
        return msgspec.convert(body, kind)
    except msgspec.ValidationError as e:
        raise ApiFailure(api.answers[-1].url, f"a malformed answer: {e}") from e


def _readme_text(readme: _Readme) -> str | None:
    if readme.encoding != "base64":
        return None
    try:
        return base64.b64decode(readme.content).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


def _path(project: str) -> str:
    owner, _, name = project.partition("/")
    return f"{quote(owner, safe='')}/{quote(name, safe='')}"


def _bounded(url: str, response: httpx.Response) -> bytes:
    parts, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise ApiFailure(url, f"an answer of more than {MAX_BYTES} bytes")
        parts.append(chunk)
    return b"".join(parts)


def _json(url: str, raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:  # a nesting too deep for the parser is refused too
        raise ApiFailure(url, f"the answer is not JSON ({type(e).__name__})") from e
