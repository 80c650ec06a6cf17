"""GitHub-hosted source files addressed at an exact commit (SI-IQ section 8).

A configured address names a branch (`https://github.com/OWNER/REPO/blob/main/PATH`, or the same
on raw.githubusercontent.com); each round resolves the branch to its commit through GitHub's
API and fetches the file at that commit, which is the address recorded with the snapshot. An
address already at a 40-digit commit is used as it is.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol

from adapters.sources.http import Fetched
from domain.siiq.source_format import Unreachable

COMMIT = re.compile(r"^[0-9a-f]{40}$")
FORMS = (
    re.compile(
        r"^https://github\.com/(?P<repo>[^/]+/[^/]+)/(?:blob|raw)/(?P<ref>[^/]+)/(?P<path>.+)$"
    ),
    re.compile(
        r"^https://raw\.githubusercontent\.com/(?P<repo>[^/]+/[^/]+)/(?P<ref>[^/]+)/(?P<path>.+)$"
    ),
)


class GitHubBases(NamedTuple):
    api: str = "https://api.github.com"
    raw: str = "https://raw.githubusercontent.com"


DEFAULT_BASES = GitHubBases()


class GitHubFile(NamedTuple):
    repo: str
    ref: str
    path: str


class Getter(Protocol):
    def get(self, url: str, *, accept: str | None = None) -> Fetched: ...


def github_file(url: str) -> GitHubFile | None:
    """The repository, ref and path of a GitHub file address; None for any other address."""
    for form in FORMS:
        found = form.match(url)
        if found:
            return GitHubFile(found["repo"], found["ref"], found["path"])
    return None


class CommitResolver:
    """Resolves each (repository, branch) once per round: files of one repository are read at
    the same commit."""

    def __init__(self, getter: Getter, bases: GitHubBases = DEFAULT_BASES) -> None:
        self.getter = getter
        self.bases = bases
        self.commits: dict[tuple[str, str], str] = {}

    def address(self, url: str) -> str:
        """The address to fetch and record: at an exact commit for a GitHub file."""
        file = github_file(url)
        if file is None:
            return url
        commit = file.ref if COMMIT.match(file.ref) else self.commit(file.repo, file.ref)
        return f"{self.bases.raw.rstrip('/')}/{file.repo}/{commit}/{file.path}"

    def commit(self, repo: str, ref: str) -> str:
        key = (repo, ref)
        if key not in self.commits:
            api = f"{self.bases.api.rstrip('/')}/repos/{repo}/commits/{ref}"
            answer = self.getter.get(api, accept="application/vnd.github.sha")
            text = (answer.body or b"").decode("ascii", "replace").strip()
            if not COMMIT.match(text):
                raise Unreachable(api, f"no commit for {repo}@{ref} (answer {text[:60]!r})")
            self.commits[key] = text
        return self.commits[key]
