"""Issue 30, deliverables 1 and 5: `pool candidates` reads GitHub's API (a stand-in on loopback
speaking its protocol), archives every answer, records each candidate with each criterion's
verdict; a rate limit, a 5xx, a malformed answer or a listing that moves records only its
failure, and a rate-limited round waits for the reset."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.artifacts import FileArtifactStore
from adapters.github_api import ApiFailure, GitHubApi
from api.services.pool import CandidatesReport, fetch_candidates
from domain.errors import InvalidInput
from domain.events import ApiAnswer, CandidateRecorded, CandidatesFetchFailed, streams
from domain.pool import criteria, eligible
from ledger.ledger import Ledger
from tests.conftest import argusic
from tests.github_stand_in import TODAY, GitHubStandIn, serving, synthetic

SINCE = TODAY - timedelta(days=60)
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture
def github() -> Iterator[GitHubStandIn]:
    with serving(GitHubStandIn(synthetic())) as stand_in:
        yield stand_in


def api_for(
    github: GitHubStandIn, archive: Path
) -> Callable[[Mapping[str, ApiAnswer]], AbstractContextManager[GitHubApi]]:
    @contextmanager
    def api(held: Mapping[str, ApiAnswer]) -> Iterator[GitHubApi]:
        with GitHubApi(github.url, FileArtifactStore(archive), held=held) as reading:
            yield reading

    return api


def fetched(
    ledger: Ledger,
    github: GitHubStandIn,
    archive: Path,
    now: datetime = NOW,
    excluded: dict[str, str] | None = None,
) -> CandidatesReport:
    return fetch_candidates(
        ledger,
        api_for(github, archive),
        since=SINCE,
        now=now,
        failures=(ApiFailure,),
        known={e.candidate.project for e in recorded(ledger)},
        excluded=excluded or {},
    )


def recorded(ledger: Ledger) -> list[CandidateRecorded]:
    return [r.event for r in ledger.events() if isinstance(r.event, CandidateRecorded)]


def test_every_candidate_is_recorded_with_its_verdicts_and_its_archived_answers(
    ledger: Ledger, github: GitHubStandIn, tmp_path: Path
) -> None:
    report = fetched(ledger, github, tmp_path / "pool")
    expected = {r.name for r in github.repos.values() if r.created > SINCE}
    assert {row.project for row in report.candidates} == expected
    events = {e.candidate.project: e for e in recorded(ledger)}
    assert set(events) == expected
    archive = FileArtifactStore(tmp_path / "pool")
    for row in report.candidates:
        event = events[row.project]
        repo = github.repos[row.project]
        assert event.criteria == criteria(event.candidate, SINCE)
        assert row.eligible == eligible(event.criteria, excluded=False)
        assert (event.candidate.license, event.candidate.commit) == (repo.licence, repo.commit)
        assert event.candidate.readme is (repo.readme is not None)
        assert event.heavy is (repo.size_kb > 500 * 1024)
        for answer in event.answers:
            if answer.status == 404:
                assert answer.url.endswith("/readme")
                assert repo.readme is None
            else:
                assert archive.path(answer.sha256 or "").is_file()
    assert any(not row.eligible for row in report.candidates)
    assert any(row.eligible for row in report.candidates)


def test_the_same_round_again_records_nothing_new(
    ledger: Ledger, github: GitHubStandIn, tmp_path: Path
) -> None:
    fetched(ledger, github, tmp_path / "pool")
    size = ledger.size()
    assert github.switches.not_modified == 0
    again = fetched(ledger, github, tmp_path / "pool")
    assert ledger.size() == size
    # every answer but a missing README's asked for again on its ETag: a 304, read from the
    # archive
    without_readme = sum(1 for row in again.candidates if not row.readme)
    assert without_readme
    asked = len(github.switches.requests) // 2
    assert github.switches.not_modified == asked - without_readme
    assert len(again.candidates) == len(recorded(ledger))


@pytest.mark.parametrize(
    ("switch", "value", "said"),
    [
        ("fail_path", "/repos/", "HTTP status 502"),
        ("malformed_path", "/search/", "not JSON"),
        ("malformed_path", "/repos/maker03", "not JSON"),
        ("shrink_after_page", 1, "the listing changed while it was read"),
    ],
)
def test_a_round_the_api_cuts_short_records_only_its_failure(  # noqa: PLR0917 (fixtures)
    ledger: Ledger, github: GitHubStandIn, tmp_path: Path, switch: str, value: object, said: str
) -> None:
    setattr(github.switches, switch, value)
    size = ledger.size()
    with pytest.raises(InvalidInput, match=said):
        fetched(ledger, github, tmp_path / "pool")
    assert recorded(ledger) == []
    failures = [r.event for r in ledger.stream(streams.CANDIDATE_FETCHES)]
    assert ledger.size() == size + 1
    assert len(failures) == 1
    assert isinstance(failures[0], CandidatesFetchFailed)
    assert said in failures[0].failure
    setattr(github.switches, switch, None)  # the next round, the API well again
    assert fetched(ledger, github, tmp_path / "pool").candidates


def test_a_rate_limit_is_recorded_with_its_reset_and_waited_for(
    ledger: Ledger, github: GitHubStandIn, tmp_path: Path
) -> None:
    reset = NOW + timedelta(minutes=20)
    github.switches.rate_limit_after = 7
    github.switches.reset_at = int(reset.timestamp())
    with pytest.raises(InvalidInput, match="rate limited"):
        fetched(ledger, github, tmp_path / "pool")
    (failure,) = [r.event for r in ledger.stream(streams.CANDIDATE_FETCHES)]
    assert isinstance(failure, CandidatesFetchFailed)
    assert failure.retry_at == reset
    assert recorded(ledger) == []
    github.switches.rate_limit_after = None
    asked = len(github.switches.requests)
    size = ledger.size()
    with pytest.raises(InvalidInput, match="until 2026-12-01T12:20:00"):
        fetched(ledger, github, tmp_path / "pool", now=NOW + timedelta(minutes=5))
    assert (ledger.size(), len(github.switches.requests)) == (size, asked)  # nothing asked
    assert fetched(ledger, github, tmp_path / "pool", now=reset).candidates


def test_the_command_prints_the_candidates_as_the_contract_says(
    github: GitHubStandIn, cli_env: dict[str, str]
) -> None:
    env = {**cli_env, "ARGUSIC_GITHUB_API": github.url}
    assert argusic(env, "init").returncode == 0
    done = argusic(env, "pool", "candidates", "--since", SINCE.isoformat(), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["candidates"]
    assert set(rows[0]) == {
        "project",
        "stars",
        "created_at",
        "license",
        "languages",
        "readme",
        "commit",
        "criteria",
        "eligible",
    }
    assert set(rows[0]["criteria"]) == {
        "license",
        "readme",
        "recent",
        "not_archived",
        "no_paid_accounts",
    }


def test_an_operators_signed_exclusion_makes_a_candidate_ineligible(
    github: GitHubStandIn, cli_env: dict[str, str]
) -> None:
    env = {**cli_env, "ARGUSIC_GITHUB_API": github.url}
    assert argusic(env, "init").returncode == 0
    assert argusic(env, "operator", "init", "olga").returncode == 0
    first = json.loads(argusic(env, "pool", "candidates", "--since", str(SINCE), "--json").stdout)
    chosen = next(row["project"] for row in first["candidates"] if row["eligible"])
    unknown = argusic(env, "pool", "exclude", "nobody/none", "--reason", "x", "--as", "olga")
    assert unknown.returncode == 1
    assert "nobody/none is no recorded candidate" in unknown.stderr
    excluded = argusic(
        env, "pool", "exclude", chosen, "--reason", "needs a paid GPU", "--as", "olga", "--json"
    )
    assert excluded.returncode == 0, excluded.stderr
    assert json.loads(excluded.stdout)["action"] == "exclude_candidate"
    again = json.loads(argusic(env, "pool", "candidates", "--since", str(SINCE), "--json").stdout)
    eligible_now = {row["project"]: row["eligible"] for row in again["candidates"]}
    assert eligible_now[chosen] is False
    assert sum(eligible_now.values()) == sum(row["eligible"] for row in first["candidates"]) - 1
