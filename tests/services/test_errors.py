"""One root error: entry points map only our own errors, the same input gets the same answer
on the CLI and over HTTP, and a stray builtin error is a logged 500, never a quiet 404."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.services.queries import MethodologyQueries
from api.wiring import Argusic
from tests.conftest import append_editions, argusic
from tests.publishing import publish
from tests.services.fakes import bootstrap

ROOT = Path(__file__).resolve().parents[2]

SAME_INPUT = [
    # the HTTP API is the public's: the CLI's public view answers the same
    (
        ("ledger", "proof", "inclusion", "0", "--published"),
        ("/ledger/proof/inclusion", {"position": 0}),
    ),
    (
        ("ledger", "proof", "inclusion", "99", "--published"),
        ("/ledger/proof/inclusion", {"position": 99}),
    ),
    (
        ("ledger", "proof", "consistency", "0", "5", "--published"),
        ("/ledger/proof/consistency", {"first": 0, "second": 5}),
    ),
    (
        ("ledger", "proof", "consistency", "6", "5", "--published"),
        ("/ledger/proof/consistency", {"first": 6, "second": 5}),
    ),
    (
        ("ledger", "checkpoint", "--size", "99", "--published"),
        ("/ledger/checkpoint", {"size": 99}),
    ),
    (("run", "nobody", "--published"), ("/runs/nobody", {})),
    (("editions", "--as-of", "99", "--published"), ("/methodology/editions", {"as_of": 99})),
]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Argusic]:
    argusic = bootstrap(tmp_path)
    append_editions(argusic.ledger, 0, 7)
    publish(argusic.ledger, argusic.settings.home)  # the public sees the 7 events
    yield argusic
    argusic.close()


def test_the_same_bad_input_gets_the_same_answer_everywhere(app: Argusic) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "ARGUSIC_DATABASE_URL": app.settings.database_url,
        "ARGUSIC_HOME": str(app.settings.home),
        "ARGUSIC_LOG_FORMAT": "json",
    }
    with TestClient(app=create_app(app)) as client:
        for command, (path, params) in SAME_INPUT:
            done = argusic(env, *command, "--json")
            answer = client.get(path, params=params)
            assert (done.returncode, answer.status_code) == (1, 404), (command, done.stderr)
            assert json.loads(done.stdout)["error"] == answer.json()["detail"], command


def test_a_stray_builtin_error_is_a_logged_500(
    app: Argusic, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(self: MethodologyQueries, run_id: str, as_of: int | None = None) -> None:
        raise KeyError(run_id)

    monkeypatch.setattr(MethodologyQueries, "run", broken)
    with TestClient(app=create_app(app)) as client:
        answer = client.get("/runs/r1")
    assert answer.status_code == 500
    assert answer.json() == {"status_code": 500, "detail": "internal error"}
    logged = capsys.readouterr()
    assert "KeyError('r1')" in logged.out + logged.err


LOGGED_ERROR = """
import logging
import structlog
from api.cli import logs

logs.configure({fmt!r})

def judge(run_id):
    token = "sk-a-local-secret"
    return {{}}[run_id]

try:
    judge("r1")
except KeyError as e:
    {log}.error("unexpected error", exc_info=e)
"""
LOGGERS = {
    "structlog": "structlog.get_logger()",
    "uvicorn.error": "logging.getLogger('uvicorn.error')",
}
"""Ours, and a library's through the standard library (uvicorn's, as an ASGI error is)."""


@pytest.mark.parametrize("logger", LOGGERS)
@pytest.mark.parametrize("fmt", ["json", "console"])
def test_a_logged_error_shows_its_frames_and_never_their_locals(fmt: str, logger: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOGGED_ERROR.format(fmt=fmt, log=LOGGERS[logger])],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert "judge" in done.stderr, "the frame where it failed is named"
    assert "KeyError" in done.stderr
    assert "sk-a-local-secret" not in done.stderr
    if fmt == "json":
        logged = json.loads(done.stderr)
        frames = logged["exception"][0]["frames"]
        assert frames[-1]["name"] == "judge"
        assert logged.get("logger", "structlog") == logger


CONFIGURED_TWICE = """
import logging
from api.cli import logs

others = logging.NullHandler()
logging.getLogger().addHandler(others)
logs.configure("json")
logs.configure("json")
handlers = logging.getLogger().handlers
print(len(handlers), others in handlers)
"""


def test_configuring_the_logs_again_replaces_its_own_handler_and_keeps_the_others() -> None:
    """In a process of its own: the logs' configuration is the process's."""
    done = subprocess.run(
        [sys.executable, "-c", CONFIGURED_TWICE],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert done.stdout.split() == ["2", "True"], done.stdout
