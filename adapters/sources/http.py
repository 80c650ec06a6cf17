"""Fetching a source file over HTTP with conditional requests (SI-IQ section 8: every source is
checked hourly with `If-None-Match` / `If-Modified-Since`), bounded in time and size.

A 304 gives no body; a 200 gives the bytes with their validators (ETag, Last-Modified) for the
next request. Anything else (a network error, a timeout, another status, a file over the size
bound) raises a named `SourceFailure`; nothing is retried here, the next hourly check is the
retry.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import NamedTuple

import httpx

from domain.siiq.source_format import TooLarge, Unreachable

USER_AGENT = "argusic-siiq/1.0 (+https://argusic.local/siiq)"


class Validators(NamedTuple):
    """What a previous 200 answered, sent back so an unchanged file costs a 304."""

    etag: str | None = None
    last_modified: str | None = None


class Fetched(NamedTuple):
    """One answer: `body` None on a 304 (not modified)."""

    url: str
    status: int
    body: bytes | None
    validators: Validators
    content_type: str | None


class Limits(NamedTuple):
    connect_seconds: float = 10.0
    read_seconds: float = 30.0
    total_seconds: float = 120.0
    max_bytes: int = 64 << 20


DEFAULT_LIMITS = Limits()
NONE = Validators()


class HttpFetcher:
    """One HTTP client for a round of fetches (connections are reused between files)."""

    def __init__(
        self, limits: Limits = DEFAULT_LIMITS, transport: httpx.BaseTransport | None = None
    ):
        self.limits = limits
        timeout = httpx.Timeout(limits.read_seconds, connect=limits.connect_seconds)
        self.client = httpx.Client(
            timeout=timeout,
            follow_redirects=True,
            max_redirects=5,
            headers={"User-Agent": USER_AGENT},
            transport=transport,
        )

    def __enter__(self) -> HttpFetcher:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def get(self, url: str, validators: Validators = NONE, accept: str | None = None) -> Fetched:
        """GET `url`, conditional on `validators`; the body is read up to the size bound and
        the whole answer within the time bound."""
        headers = {}
        if validators.etag:
            headers["If-None-Match"] = validators.etag
        if validators.last_modified:
            headers["If-Modified-Since"] = validators.last_modified
        if accept:
            headers["Accept"] = accept
        try:
            with self.client.stream("GET", url, headers=headers) as response:
                return self._answer(url, response)
        except httpx.HTTPError as e:
            raise Unreachable(url, f"{type(e).__name__}: {e or 'no answer'}") from e

    def _answer(self, url: str, response: httpx.Response) -> Fetched:
        if response.status_code not in (200, 304):
            raise Unreachable(url, f"HTTP status {response.status_code}")
        found = Validators(response.headers.get("ETag"), response.headers.get("Last-Modified"))
        kind = response.headers.get("Content-Type")
        final = str(response.url)
        if response.status_code == 304:
            return Fetched(final, 304, None, found, kind)
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.limits.max_bytes:
            raise TooLarge(url, f"{declared} bytes, more than {self.limits.max_bytes}")
        deadline = time.monotonic() + self.limits.total_seconds
        parts, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.limits.max_bytes:
                raise TooLarge(url, f"more than {self.limits.max_bytes} bytes")
            if time.monotonic() > deadline:
                raise Unreachable(url, f"took more than {self.limits.total_seconds:g} seconds")
            parts.append(chunk)
        return Fetched(final, 200, b"".join(parts), found, kind)
