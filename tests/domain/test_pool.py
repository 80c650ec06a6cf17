"""Sections 3 and 6, the project pool's rules: each criterion, the 80/20 split, the 30 days, the
monthly rotation, variety, a replayable draw and the secret list's commitment."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

import pytest

from domain.pool import (
    Candidate,
    Pinned,
    Pools,
    PoolTooSmall,
    commitment,
    commitment_holds,
    criteria,
    eligible,
    heavy_repository,
    main_language,
    runs_without_paid_accounts,
    secret_count,
    select_pools,
)

OPENS = date(2026, 12, 1)
LANGUAGES = ["Python", "Rust", "Go", "TypeScript", "C"]


def candidate(n: int, *, age_days: int = 10, **changes: object) -> Candidate:
    fields: dict[str, object] = {
        "project": f"owner{n:03d}/repo{n:03d}",
        "stars": 1000 - n,
        "created_at": OPENS - timedelta(days=age_days),
        "pushed_at": OPENS - timedelta(days=1),
        "license": "MIT",
        "languages": {LANGUAGES[n % len(LANGUAGES)]: 10_000 + n},
        "readme": True,
        "archived": False,
        "default_branch": "main",
        "commit": f"{n:040x}",
        "size_kb": 2_000 + 40_000 * (n % 4),
        "no_paid_accounts": True,
    }
    return Candidate(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spdx", "permissive"),
    [
        ("MIT", True),
        ("Apache-2.0", True),
        ("BSL-1.0", True),
        ("0BSD", True),
        ("GPL-3.0", False),
        ("AGPL-3.0", False),
        ("NOASSERTION", False),
        (None, False),
    ],
)
def test_only_a_permissive_licence_meets_the_licence_criterion(
    spdx: str | None, permissive: bool
) -> None:
    assert criteria(candidate(1, license=spdx), OPENS - timedelta(days=60)).license is permissive


def test_each_criterion_is_judged_and_recorded_on_its_own() -> None:
    since = OPENS - timedelta(days=20)
    verdicts = criteria(candidate(1, readme=False, archived=True, age_days=25), since)
    assert (verdicts.readme, verdicts.not_archived, verdicts.recent) == (False, False, False)
    assert not eligible(verdicts, excluded=False)
    assert eligible(criteria(candidate(2), since), excluded=False)


def test_paid_accounts_are_read_from_the_readme_and_undecided_stays_undecided() -> None:
    assert runs_without_paid_accounts("Requires a paid account to use the API.") is False
    assert runs_without_paid_accounts("Runs fully offline; no account needed.") is True
    assert runs_without_paid_accounts("A fast JSON parser.") is None
    assert runs_without_paid_accounts(None) is None
    since = OPENS - timedelta(days=60)
    assert eligible(criteria(candidate(1, no_paid_accounts=None), since), excluded=False)
    assert not eligible(criteria(candidate(1, no_paid_accounts=False), since), excluded=False)


def test_an_operators_exclusion_makes_a_candidate_ineligible() -> None:
    assert not eligible(criteria(candidate(1), OPENS - timedelta(days=60)), excluded=True)


def test_a_repository_over_500_mb_is_heavy() -> None:
    assert heavy_repository(500 * 1024 + 1)
    assert not heavy_repository(500 * 1024)


@pytest.mark.parametrize(("size", "secret"), [(1, 1), (4, 1), (10, 2), (12, 2), (13, 3), (50, 10)])
def test_the_secret_pool_is_a_fifth_and_at_least_one(size: int, secret: int) -> None:
    assert secret_count(size) == secret


def pools(
    candidates: list[Candidate], previous: frozenset[str] = frozenset(), seed: str = "s"
) -> Pools:
    return select_pools(candidates, opens=OPENS, size=10, previous_secret=previous, seed=seed)


def test_the_secret_pool_comes_from_the_30_days_before_the_cycle_and_rotates() -> None:
    fresh = [candidate(n, age_days=5 + n) for n in range(8)]  # all within 30 days
    old = [candidate(n, age_days=31 + n) for n in range(8, 40)]  # none within
    chosen = pools(fresh + old)
    assert len(chosen.secret) == 2
    assert len(chosen.public) == 8
    assert all(OPENS - c.created_at <= timedelta(days=30) for c in chosen.secret)
    following = pools(fresh + old, previous=frozenset(c.project for c in chosen.secret))
    assert not {c.project for c in following.secret} & {c.project for c in chosen.secret}
    assert not {c.project for c in chosen.public} & {c.project for c in chosen.secret}


def test_too_few_fresh_candidates_refuse_the_selection_naming_why() -> None:
    with pytest.raises(PoolTooSmall, match="30 days before 2026-12-01"):
        pools([candidate(0)] + [candidate(n, age_days=45) for n in range(1, 20)])


def test_no_language_holds_more_than_half_when_the_candidates_allow() -> None:
    mostly_python = [candidate(n, languages={"Python": 9}) for n in range(30)]
    others = [candidate(n) for n in range(30, 40)]
    chosen = pools(mostly_python + others)
    counts = Counter(main_language(c) for c in chosen.public + chosen.secret)
    assert counts["Python"] <= 5


def test_the_same_seed_draws_the_same_pools_and_another_seed_may_not() -> None:
    candidates = [candidate(n, age_days=n) for n in range(1, 60)]
    assert pools(candidates, seed="a") == pools(list(reversed(candidates)), seed="a")
    assert any(pools(candidates, seed="a") != pools(candidates, seed=s) for s in "bcdef")


def test_the_commitment_verifies_the_revealed_list_and_fails_a_tampered_one() -> None:
    secret = [Pinned(project="b/b", commit="2" * 40), Pinned(project="a/a", commit="1" * 40)]
    salt = "ab" * 16
    committed = commitment(secret, salt)
    assert commitment_holds(list(reversed(secret)), salt, committed)  # the order is canonical
    tampered = [secret[0], Pinned(project="c/c", commit="1" * 40)]
    assert not commitment_holds(tampered, salt, committed)
    assert not commitment_holds(secret, "cd" * 16, committed)
