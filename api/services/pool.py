"""`pool candidates`: read the repositories that trended since a date from GitHub's API, judge
each by section 6's criteria and record them, every answer archived (methodology sections 3
and 6). A round the API cuts short (a rate limit, a 5xx, a malformed answer, a listing that
changes while it is read) records only its failure, and the next round tries again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Any, Protocol

import msgspec

from domain.errors import InvalidInput
from domain.events import (
    ApiAnswer,
    Candidate,
    CandidateRecorded,
    CandidatesFetchFailed,
    Criteria,
    Pinned,
    streams,
)
from domain.pool import Listing, criteria, eligible, heavy_repository
from domain.state.methodology import Methodology
from ledger.ledger import Ledger

MOST_PAGES = 10
"""GitHub's search gives at most 1,000 results: 10 pages of 100."""
PER_PAGE = 100


class CandidateReading(Protocol):
    """GitHub's API for one round (the adapter): every answer kept in `answers`, in order."""

    answers: list[Any]

    def listing(self, since: str, page: int, per_page: int) -> Listing: ...

    def candidate(self, project: str) -> Candidate: ...


class CandidateRow(msgspec.Struct, frozen=True, kw_only=True):
    """One candidate as `pool candidates --json` prints it (ARCHITECTURE.md, Project pool)."""

    project: str
    stars: int
    created_at: date
    license: str | None
    languages: dict[str, int]
    readme: bool
    commit: str
    criteria: Criteria
    eligible: bool


class CandidatesReport(msgspec.Struct, frozen=True, kw_only=True):
    candidates: list[CandidateRow]


def fetch_candidates(
    ledger: Ledger,
    api: Callable[[Mapping[str, ApiAnswer]], AbstractContextManager[CandidateReading]],
    *,
    since: date,
    now: datetime,
    failures: tuple[type[Exception], ...],
    known: Collection[str],
    excluded: Mapping[str, str],
) -> CandidatesReport:
    """Sections 3 and 6: every repository created after `since`, as the search lists them by
    stars, read and judged (conditionally on the answers `known` candidates were last recorded
    with); all of the round appended at once, or only its failure."""
    _not_before_retry(ledger, now)
    last = last_records(ledger, known)
    held = {a.url: a for event in last.values() for a in event.answers if a.etag and a.sha256}
    cut_short: tuple[type[Exception], ...] = (*failures, _ListingMoved)
    try:
        with api(held) as reading:
            read = list(_read_round(reading, since))
    except cut_short as e:  # each names its `url` and `failure`
        failed = CandidatesFetchFailed(
            since=since,
            tried_at=now,
            url=getattr(e, "url", ""),
            failure=getattr(e, "failure", str(e)),
            retry_at=getattr(e, "retry_at", None),
        )
        ledger.append(ledger.next_versions([failed]))
        raise InvalidInput(f"pool candidates: {failed.url}: {failed.failure}") from e
    events = [_recorded(candidate, since, now, answers) for candidate, answers in read]
    fresh = [e for e in events if _changed(last.get(e.candidate.project), e)]
    if fresh:
        ledger.append(ledger.next_versions(fresh))
    return CandidatesReport(candidates=[_row(e, e.candidate.project in excluded) for e in events])


def _read_round(
    reading: CandidateReading, since: date
) -> Iterator[tuple[Candidate, list[ApiAnswer]]]:
    """Every page of the search, then each repository on it; a listing whose announced total
    changes between pages has moved under us, and the round is refused."""
    projects: list[str] = []
    total: int | None = None
    for page in range(1, MOST_PAGES + 1):
        listed = reading.listing(since.isoformat(), page, PER_PAGE)
        if total is not None and listed.total != total:
            url = reading.answers[-1].url
            moved = f"the listing changed while it was read ({total}, then {listed.total})"
            raise _ListingMoved(url, moved)
        total = listed.total
        projects += [p for p in listed.projects if p not in projects]
        if len(listed.projects) < PER_PAGE or len(projects) >= total:
            break
    listed_by = _answers(reading.answers)
    for project in projects:
        first = len(reading.answers)
        candidate = reading.candidate(project)
        yield candidate, listed_by + _answers(reading.answers[first:])


class _ListingMoved(Exception):
    def __init__(self, url: str, failure: str) -> None:
        super().__init__(f"{url}: {failure}")
        self.url, self.failure, self.retry_at = url, failure, None


def _answers(answers: list[Any]) -> list[ApiAnswer]:
    return [ApiAnswer(url=a.url, status=a.status, sha256=a.sha256, etag=a.etag) for a in answers]


def _recorded(
    candidate: Candidate, since: date, now: datetime, answers: list[ApiAnswer]
) -> CandidateRecorded:
    return CandidateRecorded(
        candidate=candidate,
        since=since,
        fetched_at=now,
        criteria=criteria(candidate, since),
        heavy=heavy_repository(candidate.size_kb),
        answers=answers,
    )


def last_records(ledger: Ledger, projects: Collection[str]) -> dict[str, CandidateRecorded]:
    """Each known candidate's last record."""
    last = {}
    for project in projects:
        records = ledger.stream(streams.candidate(project))
        found = [r.event for r in records if isinstance(r.event, CandidateRecorded)]
        if found:
            last[project] = found[-1]
    return last


def _changed(last: CandidateRecorded | None, event: CandidateRecorded) -> bool:
    """A candidate whose record says what the last one said (candidate, since, verdicts) is not
    recorded again."""
    if last is None:
        return True
    said = (last.candidate, last.since, last.criteria)
    return said != (event.candidate, event.since, event.criteria)


def _not_before_retry(ledger: Ledger, now: datetime) -> None:
    """A rate-limited round is tried again only once the API said it may be."""
    failed = [r.event for r in ledger.stream(streams.CANDIDATE_FETCHES)]
    last = failed[-1] if failed else None
    if isinstance(last, CandidatesFetchFailed) and last.retry_at and now < last.retry_at:
        raise InvalidInput(
            f"pool candidates: GitHub's API is rate limited until {last.retry_at.isoformat()}; "
            "nothing was fetched"
        )


def _row(event: CandidateRecorded, excluded: bool) -> CandidateRow:
    c = event.candidate
    return CandidateRow(
        project=c.project,
        stars=c.stars,
        created_at=c.created_at,
        license=c.license,
        languages=c.languages,
        readme=c.readme,
        commit=c.commit,
        criteria=event.criteria,
        eligible=eligible(event.criteria, excluded),
    )


class Selection(msgspec.Struct, frozen=True, kw_only=True):
    """`pool select --json` (ARCHITECTURE.md, Project pool): never the secret list."""

    cycle: str
    public: list[Pinned]
    secret_count: int
    secret_commitment: str


def selection(state: Methodology, cycle: str) -> Selection:
    chosen = state.selections[cycle]
    return Selection(
        cycle=cycle,
        public=chosen.public,
        secret_count=len(chosen.secret),
        secret_commitment=chosen.commitment,
    )
