"""The pinned commit only: a shallow fetch from a real git repository by file URL, and the
archive fallback over real HTTP on 127.0.0.1 (methodology section 7, point 1)."""

from __future__ import annotations

import gzip
import io
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from adapters.source_fetch import GitSource, SourceFetchError


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with two commits; returns (path, first commit, second commit)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("first\n")
    (repo / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    first = git(repo, "rev-parse", "HEAD")
    (repo / "README.md").write_text("second\n")
    git(repo, "commit", "-qam", "two")
    return repo, first, git(repo, "rev-parse", "HEAD")


def members(archive: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def test_a_shallow_fetch_of_exactly_the_pinned_commit(repository: tuple[Path, str, str]) -> None:
    repo, first, _ = repository
    fetched = GitSource(timeout=30).fetch(repo.as_uri(), first)
    assert fetched.method == "git"
    assert fetched.commit == first
    assert fetched.tree == git(repo, "rev-parse", f"{first}^{{tree}}")
    files = members(fetched.archive)
    assert files == {"project/README.md": b"first\n", "project/run.sh": b"#!/bin/sh\necho hi\n"}
    assert not any(".git" in name for name in files)
    again = GitSource(timeout=30).fetch(repo.as_uri(), first)
    assert again.archive_sha256 == fetched.archive_sha256  # same commit, same bytes


def test_an_unknown_commit_fails(repository: tuple[Path, str, str]) -> None:
    repo, _, _ = repository
    with pytest.raises(SourceFetchError):
        GitSource(timeout=30).fetch(repo.as_uri(), "0" * 40)
    with pytest.raises(SourceFetchError, match="full commit id"):
        GitSource(timeout=30).fetch(repo.as_uri(), "abc123")


@pytest.fixture
def archive_server(repository: tuple[Path, str, str]) -> Iterator[str]:
    """A web server answering `/octo/hello/archive/<commit>.tar.gz` as GitHub does, and
    refusing the git protocol (so the fetch has to fall back)."""
    repo, first, _ = repository
    tar = subprocess.run(
        ["git", "archive", "--format=tar", f"--prefix=hello-{first}/", first],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    body = gzip.compress(tar)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            ok = self.path == f"/octo/hello/archive/{first}.tar.gz"
            self.send_response(200 if ok else 404)
            self.send_header("Content-Length", str(len(body) if ok else 0))
            self.end_headers()
            if ok:
                self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/octo/hello"
    server.shutdown()
    server.server_close()


def test_the_archive_when_the_commit_cannot_be_fetched(
    repository: tuple[Path, str, str], archive_server: str
) -> None:
    repo, first, _ = repository
    fetched = GitSource(timeout=30).fetch(archive_server, first)
    assert fetched.method == "archive"
    assert fetched.commit == first
    assert fetched.tree == git(repo, "rev-parse", f"{first}^{{tree}}")
    assert members(fetched.archive)["project/README.md"] == b"first\n"
    with pytest.raises(SourceFetchError, match="HTTP 404"):
        GitSource(timeout=30).fetch(archive_server, "1" * 40)
