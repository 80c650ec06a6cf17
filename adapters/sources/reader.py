"""Reading one configured source address (SI-IQ section 8): resolve a GitHub file to its commit,
fetch with conditional requests, archive every file received under its SHA-256, read
OpenRouter's manifest and its dated file (verified by SHA-256), and parse; every failure is
turned into the `Answer` that says so, never raised.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from msgspec.structs import replace

from adapters.sources import PARSERS, openrouter
from adapters.sources.github import CommitResolver
from adapters.sources.http import Fetched, Validators
from adapters.sources.tables import sha256
from domain.siiq.snapshots import Answer
from domain.siiq.source_format import SourceFailure


class Getter(Protocol):
    def get(self, url: str, validators: Validators = ..., accept: str | None = None) -> Fetched: ...


class Archive(Protocol):
    def put_stream(self, chunks: list[bytes]) -> object: ...


class SourceReader:
    """Reads addresses for one round of fetches (one commit per GitHub branch per round)."""

    def __init__(
        self,
        getter: Getter,
        resolver: CommitResolver,
        archive: Archive,
        clock: Callable[[], datetime],
    ) -> None:
        self.getter = getter
        self.resolver = resolver
        self.archive = archive
        self.clock = clock

    def read(
        self,
        source: str,
        address: str,
        etag: str | None,
        last_modified: str | None,
        current: str | None,
    ) -> Answer:
        """What `address` of `source` gives now, against the validators (ETag, Last-Modified)
        and the SHA-256 of the file held as current."""
        fetched_at = self.clock()
        validators = Validators(etag, last_modified)
        url = address
        try:
            url = self.resolver.address(address)
            if source == "openrouter":
                return self._openrouter(address, url, validators, current, fetched_at)
            answer = self.getter.get(url, validators)
            return self._parsed(source, address, answer, fetched_at)
        except SourceFailure as failure:
            return Answer(
                source=source,
                address=address,
                url=url,
                fetched_at=fetched_at,
                failure=str(failure),
                failure_kind=failure.kind,
            )

    def _parsed(self, source: str, address: str, answer: Fetched, fetched_at: datetime) -> Answer:
        base = Answer(
            source=source,
            address=address,
            url=answer.url,
            fetched_at=fetched_at,
            etag=answer.validators.etag,
            last_modified=answer.validators.last_modified,
        )
        if answer.body is None:
            return replace(base, not_modified=True)
        body = answer.body
        self.archive.put_stream([body])
        kept = replace(base, sha256=sha256(body), size=len(body))
        name = answer.url.rsplit("?", 1)[0]
        try:
            return replace(kept, tables=PARSERS[source](name, body))
        except SourceFailure as failure:
            return replace(kept, failure=str(failure), failure_kind=failure.kind)

    def _openrouter(
        self,
        address: str,
        url: str,
        validators: Validators,
        current: str | None,
        fetched_at: datetime,
    ) -> Answer:
        """Section 8: the manifest (conditional), then the dated file of the address's dataset
        it names, once."""
        url, dataset = openrouter.dataset_of(url)
        manifest = self.getter.get(url, validators)
        base = Answer(
            source="openrouter",
            address=address,
            url=url,
            fetched_at=fetched_at,
            etag=manifest.validators.etag,
            last_modified=manifest.validators.last_modified,
        )
        if manifest.body is None:
            return replace(base, not_modified=True)
        self.archive.put_stream([manifest.body])
        dated = openrouter.newest_file(manifest.url, manifest.body, dataset)
        if dated.sha256 == current:
            return replace(base, url=dated.url, sha256=dated.sha256, not_modified=True)
        body = self.getter.get(dated.url).body or b""
        self.archive.put_stream([body])
        kept = replace(base, url=dated.url, sha256=sha256(body), size=len(body))
        try:
            openrouter.verify(dated, body)
            return replace(kept, tables=openrouter.parse(dated.url, body, dataset))
        except SourceFailure as failure:
            return replace(kept, failure=str(failure), failure_kind=failure.kind)
