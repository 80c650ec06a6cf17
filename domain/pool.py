"""The project pool (methodology sections 3 and 6): candidates that trended in recent weeks, each
judged by the selection criteria; 80 % of a cycle's pool public, 20 % secret, chosen among
repositories created in the 30 days before the cycle opens and never in the previous cycle's
secret pool; the secret list committed to (a salted SHA-256) when chosen, revealed at the close.

Every rule is a pure function of recorded facts, and the draw is a function of a recorded seed,
so a selection replays to the same pools byte for byte.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from typing import NamedTuple

import msgspec

from domain.events.pool import Candidate, Criteria, Pinned

PERMISSIVE = frozenset(
    {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "0BSD", "Zlib", "BSL-1.0"}
)
"""Section 6, "una licencia permisiva": these SPDX ids; copyleft and unknown licences are not."""
SECRET_DAYS = 30
"""Section 6: the secret pool is chosen among projects that trended in the last 30 days."""
SECRET_SHARE = 0.2
HEAVY_REPOSITORY_MB = 500
"""v1.2: a repository over 500 MB "según GitHub" runs on the heavy budget."""

PAID = re.compile(
    r"(?i)\b(?:requires? (?:a |an )?(?:paid|premium|pro|enterprise) (?:account|plan|subscription|"
    r"licen[cs]e)|paid (?:account|plan|subscription|api key) (?:is )?required|"
    r"(?:only|requires?) (?:with )?(?:a |an )?(?:active )?subscription)"
)
"""A README that says the project needs a paid account to work at all."""
FREE = re.compile(
    r"(?i)\b(?:no (?:account|api key|sign[- ]?up|registration) (?:is )?(?:needed|required)|"
    r"works offline|runs (?:fully )?(?:locally|offline)|free and open[- ]source|self[- ]hosted)"
)
"""A README that says the project works without an account."""


def permissive_licence(spdx: str | None) -> bool:
    """Section 6: "una licencia permisiva" (the SPDX ids of `PERMISSIVE`)."""
    return spdx in PERMISSIVE


def recent(created_at: date, since: date) -> bool:
    """Section 3: projects that trended in recent weeks, created after `since`."""
    return created_at > since


def runs_without_paid_accounts(readme: str | None) -> bool | None:
    """Section 6: "la posibilidad de funcionar a un nivel básico sin cuentas de pago", as the
    README says it: false when it says a paid account is needed, true when it says none is,
    undecided (None) when it says neither or no README is at hand."""
    if not readme:
        return None
    if PAID.search(readme):
        return False
    return True if FREE.search(readme) else None


def heavy_repository(size_kb: int) -> bool:
    """v1.2: a repository over 500 MB according to GitHub (its `size`, in KB) is heavy."""
    return size_kb > HEAVY_REPOSITORY_MB * 1024


def criteria(candidate: Candidate, since: date) -> Criteria:
    """Section 6: each criterion's verdict for one candidate."""
    return Criteria(
        license=permissive_licence(candidate.license),
        readme=candidate.readme,
        recent=recent(candidate.created_at, since),
        not_archived=not candidate.archived,
        no_paid_accounts=candidate.no_paid_accounts,
    )


def eligible(verdicts: Criteria, excluded: bool) -> bool:
    """Section 6: every criterion met; an undecided `no_paid_accounts` does not exclude, a false
    one or an operator's signed exclusion does."""
    met = verdicts.license and verdicts.readme and verdicts.recent and verdicts.not_archived
    return met and verdicts.no_paid_accounts is not False and not excluded


def secret_count(size: int) -> int:
    """Section 6: 20 % of the pool is secret, at least one project."""
    return max(1, round(SECRET_SHARE * size))


def secret_eligible(candidate: Candidate, opens: date, previous_secret: frozenset[str]) -> bool:
    """Section 6: a secret project trended in the 30 days before the cycle opens, and the secret
    pool rotates every month (none of the previous cycle's secret projects again)."""
    window = opens - timedelta(days=SECRET_DAYS) <= candidate.created_at < opens
    return window and candidate.project not in previous_secret


def main_language(candidate: Candidate) -> str:
    """The language with the most bytes (ties by name), `none` for a repository without code."""
    if not candidate.languages:
        return "none"
    return min(candidate.languages.items(), key=lambda item: (-item[1], item[0]))[0]


def difficulty(candidate: Candidate) -> str:
    """Section 6's variety of difficulty, by a documented proxy: the repository's size and how
    many languages it mixes (small and single-language is `easy`; large or three or more
    languages `hard`)."""
    size_mb, mixed = candidate.size_kb / 1024, len(candidate.languages)
    if size_mb > 100 or mixed >= 3:
        return "hard"
    if size_mb > 10 or mixed == 2:
        return "medium"
    return "easy"


def draw_order(candidates: Iterable[Candidate], seed: str) -> list[Candidate]:
    """The draw: candidates ordered by SHA-256 of the recorded seed and their name, so the same
    seed gives the same order, and nobody who does not know the seed can choose it."""
    key = lambda c: hashlib.sha256(f"{seed}\n{c.project}".encode()).hexdigest()  # noqa: E731
    return sorted(candidates, key=key)


def varied(ordered: Sequence[Candidate], count: int) -> list[Candidate]:
    """Section 6's variety: take `count` in draw order, passing over one whose main language
    would then hold more than half of the pool, or whose difficulty already holds more than its
    share, as long as the others can still fill it; when they cannot, take in draw order."""
    chosen: list[Candidate] = []
    languages: Counter[str] = Counter()
    levels: Counter[str] = Counter()
    rest = list(ordered)
    for strict in (True, False):
        for candidate in list(rest):
            if len(chosen) == count:
                return chosen
            language, level = main_language(candidate), difficulty(candidate)
            if strict and (
                (languages[language] + 1) * 2 > max(count, 2)
                or levels[level] + 1 > -(-count // 3) + 1
            ):
                continue
            chosen.append(candidate)
            languages[language] += 1
            levels[level] += 1
            rest.remove(candidate)
    return chosen


class Listing(NamedTuple):
    """One page of GitHub's search: the total it announces and the repositories on it."""

    total: int
    projects: list[str]


class Pools(msgspec.Struct, frozen=True, kw_only=True):
    public: list[Candidate]
    secret: list[Candidate]


class PoolTooSmall(ValueError):
    """Not enough eligible candidates for the pool asked for."""


def select_pools(
    candidates: Sequence[Candidate],
    *,
    opens: date,
    size: int,
    previous_secret: frozenset[str],
    seed: str,
) -> Pools:
    """Section 6: the secret pool first (20 %, from the 30 days before `opens`, none of the
    previous cycle's), then the public pool from the rest; each varied, each in draw order."""
    order = draw_order(candidates, seed)
    wanted = secret_count(size)
    secret_pick = [c for c in order if secret_eligible(c, opens, previous_secret)]
    if len(secret_pick) < wanted:
        raise PoolTooSmall(
            f"the secret pool needs {wanted} candidates created in the {SECRET_DAYS} days before "
            f"{opens} and not in the previous cycle's secret pool; {len(secret_pick)} are eligible"
        )
    secret = varied(secret_pick, wanted)
    taken = {c.project for c in secret}
    public_pick = [c for c in order if c.project not in taken]
    if len(public_pick) < size - wanted:
        raise PoolTooSmall(
            f"the public pool needs {size - wanted} more eligible candidates; "
            f"{len(public_pick)} remain"
        )
    public = varied(public_pick, size - wanted)
    by_name = lambda c: c.project  # noqa: E731
    return Pools(public=sorted(public, key=by_name), secret=sorted(secret, key=by_name))


def canonical_list(pinned: Sequence[Pinned]) -> bytes:
    """The secret list as committed to: `[{"project", "commit"}]` sorted by project, compact
    JSON, UTF-8."""
    return msgspec.json.encode(sorted(pinned, key=lambda p: p.project))


def commitment(pinned: Sequence[Pinned], salt: str) -> str:
    """Section 6 ("se publica solo cuando termina el ciclo"): the SHA-256 of the salt (hex), a
    newline and the canonical secret list; public from the selection, checkable at the close."""
    return hashlib.sha256(salt.encode() + b"\n" + canonical_list(pinned)).hexdigest()


def commitment_holds(pinned: Sequence[Pinned], salt: str, committed: str) -> bool:
    """The revealed list and salt give the commitment published before the cycle."""
    return commitment(pinned, salt) == committed


def pinned(candidates: Iterable[Candidate]) -> list[Pinned]:
    return [Pinned(project=c.project, commit=c.commit) for c in candidates]


def previous_secret(selections: Mapping[str, Sequence[Pinned]], cycle: str) -> frozenset[str]:
    """Section 6's monthly rotation: the secret pool of the latest cycle before `cycle` that
    has one (cycle ids are `YYYY-MM`, so their order is the calendar's)."""
    earlier = sorted(c for c in selections if c < cycle)
    return frozenset(p.project for p in selections[earlier[-1]]) if earlier else frozenset()
