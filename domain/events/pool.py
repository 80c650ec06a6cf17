"""The project pool's facts (methodology sections 3 and 6): each candidate as GitHub's API
described it with each criterion's verdict, a round of the API that failed, an operator's
exclusion."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import msgspec

from domain.events import streams
from domain.events.base import Event, Text, Value

Repository = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")]
"""GitHub's `owner/name`."""
Commit = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{40}$")]


class Candidate(Value, frozen=True):
    """A repository as GitHub's API described it when it was fetched."""

    project: Repository
    stars: int
    created_at: date
    pushed_at: date
    license: str | None
    """The SPDX id GitHub detected (`NOASSERTION` and none are not permissive)."""
    languages: dict[str, int]
    """Bytes of code per language."""
    readme: bool
    archived: bool
    default_branch: str
    commit: Commit
    """The head commit of the default branch."""
    size_kb: int
    no_paid_accounts: bool | None
    """From the README (`runs_without_paid_accounts`): true, false or undecided (None)."""


class Criteria(Value, frozen=True):
    """Section 6's criteria for one candidate (variety is judged over a pool, not here)."""

    license: bool
    readme: bool
    recent: bool
    not_archived: bool
    no_paid_accounts: bool | None


class ApiAnswer(Value, frozen=True):
    """One answer of GitHub's API, archived under its SHA-256 (none for a 404)."""

    url: str
    status: int
    sha256: str | None
    etag: str | None = None
    """For the next round's conditional request."""


class CandidateRecorded(Event, frozen=True):
    """Sections 3 and 6: a repository found trending since `since`, with what the API said of it,
    each criterion's verdict, whether it is eligible, and the answers it was read from."""

    candidate: Candidate
    since: date
    fetched_at: datetime
    criteria: Criteria
    heavy: bool
    """v1.2: over 500 MB according to GitHub."""
    answers: list[ApiAnswer]

    @property
    def stream(self) -> str:
        return streams.candidate(self.candidate.project)


class CandidateExcluded(Event, frozen=True):
    """Section 6: an operator's signed exclusion of a candidate, with the reason; it makes the
    candidate ineligible for every selection after it."""

    project: Repository
    reason: Text
    operator: str

    @property
    def stream(self) -> str:
        return streams.candidate(self.project)


class Pinned(Value, frozen=True):
    """A project of a pool at the commit it is tested at."""

    project: Repository
    commit: Commit


class PoolSelected(Event, frozen=True):
    """Section 6: a cycle's pools as drawn by a signed `select_pool`, from the candidates recorded
    at the position it followed, in the order of `seed` (recorded, so the draw replays). The
    secret list and its salt stay off every public answer until the cycle is closed; the
    commitment is public from the selection on."""

    cycle: Text
    opens: date
    size: int
    seed: str
    public: list[Pinned]
    secret: list[Pinned]
    commitment: str
    salt: str
    heavy: list[str]
    """The projects over 500 MB according to GitHub (v1.2: the heavy budget)."""
    operator: str

    @property
    def stream(self) -> str:
        return streams.cycle(self.cycle)


class CandidatesFetchFailed(Event, frozen=True):
    """A round of `pool candidates` the API cut short: nothing of it is recorded but this, and it
    is tried again later (`retry_at` for a rate limit)."""

    since: date
    tried_at: datetime
    url: Text
    failure: Text
    retry_at: datetime | None = None

    @property
    def stream(self) -> str:
        return streams.CANDIDATE_FETCHES
