"""A project's pinned commit and nothing else (methodology section 7, point 1: no history):
a shallow fetch of exactly that commit from the repository, falling back to the commit's
archive (`<repository>/archive/<commit>.tar.gz`, as GitHub serves it). What goes into the
sandbox is a tar of the tree under `project/`, without `.git`, made the same way every time.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import httpx

from domain.errors import SetupError

_FULL_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "argusic",
    "GIT_AUTHOR_EMAIL": "runner@argusic.invalid",
    "GIT_COMMITTER_NAME": "argusic",
    "GIT_COMMITTER_EMAIL": "runner@argusic.invalid",
    "GIT_AUTHOR_DATE": "1970-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "1970-01-01T00:00:00Z",
}


class SourceFetchError(SetupError):
    """The pinned commit could not be had, by fetch or by archive."""


@dataclass(frozen=True)
class FetchedSource:
    commit: str
    tree: str
    archive: bytes
    """A tar of the tree under `project/`, no `.git`."""
    method: Literal["git", "archive"]

    @property
    def archive_sha256(self) -> str:
        return hashlib.sha256(self.archive).hexdigest()


def _git(cwd: Path, *args: str, timeout: float) -> str:
    env = {**os.environ, "HOME": str(cwd), **_GIT_ENV}
    try:
        done = subprocess.run(
            ["git", "-c", "protocol.file.allow=always", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise SourceFetchError(f"git {args[0]}: no answer in {timeout:g} s") from None
    if done.returncode != 0:
        raise SourceFetchError(f"git {args[0]}: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


class GitSource:
    """Fetches pinned commits; every step bounded by `timeout` seconds."""

    def __init__(self, timeout: float = 300) -> None:
        self.timeout = timeout

    def fetch(self, repository: str, commit: str) -> FetchedSource:
        if not _FULL_SHA.match(commit):
            raise SourceFetchError(f"commit {commit!r} is not a full commit id")
        with tempfile.TemporaryDirectory(prefix="argusic-source-") as folder:
            work = Path(folder)
            try:
                return self._shallow(work / "git", repository, commit)
            except SourceFetchError as shallow:
                try:
                    return self._archive(work / "archive", repository, commit)
                except SourceFetchError as archive:
                    raise SourceFetchError(f"{shallow}; archive: {archive}") from None

    def _shallow(self, work: Path, repository: str, commit: str) -> FetchedSource:
        work.mkdir()
        _git(work, "init", "-q", timeout=self.timeout)
        _git(
            work,
            "fetch",
            "-q",
            "--depth",
            "1",
            "--no-tags",
            repository,
            commit,
            timeout=self.timeout,
        )
        fetched = _git(work, "rev-parse", "FETCH_HEAD", timeout=self.timeout)
        if fetched != commit:
            raise SourceFetchError(f"fetched {fetched}, not the pinned {commit}")
        return self._from_repository(work, commit, "git")

    def _from_repository(
        self, work: Path, commit: str, method: Literal["git", "archive"]
    ) -> FetchedSource:
        tree = _git(work, "rev-parse", f"{commit}^{{tree}}", timeout=self.timeout)
        archive = subprocess.run(
            ["git", "archive", "--format=tar", "--prefix=project/", commit],  # its time, not now
            cwd=work,
            env={**os.environ, **_GIT_ENV},
            capture_output=True,
            timeout=self.timeout,
            check=True,
        ).stdout
        return FetchedSource(commit=commit, tree=tree, archive=archive, method=method)

    def _archive(self, work: Path, repository: str, commit: str) -> FetchedSource:
        """The commit's archive from the repository's web address; its tree is recomputed (the
        archive cannot prove its commit, which the event's `method` says)."""
        url = f"{repository.removesuffix('.git').rstrip('/')}/archive/{commit}.tar.gz"
        if not url.startswith(("https://", "http://")):
            raise SourceFetchError(f"no archive address for {repository}")
        try:
            response = httpx.get(url, timeout=self.timeout, follow_redirects=True)
        except httpx.HTTPError as e:
            raise SourceFetchError(f"archive {url}: {type(e).__name__}") from None
        if response.status_code != 200:
            raise SourceFetchError(f"archive {url}: HTTP {response.status_code}")
        tree_root = work / "tree"
        tree_root.mkdir(parents=True)
        _extract_single_folder(response.content, tree_root)
        _git(tree_root, "init", "-q", timeout=self.timeout)
        _git(tree_root, "add", "-A", "-f", timeout=self.timeout)
        _git(tree_root, "commit", "-q", "--no-verify", "-m", commit, timeout=self.timeout)
        return replace(self._from_repository(tree_root, "HEAD", "archive"), commit=commit)


def _extract_single_folder(data: bytes, into: Path) -> None:
    """Extract a `name-commit/...` archive's contents into `into` (safe members only)."""
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as archive:
        for member in archive.getmembers():
            _, _, inner = member.name.partition("/")
            if not inner or not (member.isfile() or member.isdir() or member.issym()):
                continue
            member.name = inner
            archive.extract(member, into, filter="data")
