"""Shared fixtures: every ledger test runs on SQLite and on PostgreSQL.

PostgreSQL is the server at ARGUSIC_TEST_PG_URL; each test gets a schema of its own. `make test`
sets ARGUSIC_REQUIRE_SERVICES=1, which turns a missing server into a failure, never a skip.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import psycopg
import pytest
from hypothesis import settings as hypothesis_settings
from psycopg import sql

from adapters.s3_artifacts import S3ArtifactStore, connect
from api.services.demo import DemoReport
from api.wiring import Settings, init
from domain.events import EditionDrafted
from ledger.ledger import Ledger, NewEvent
from tests.s3_gateway import Gateway

if TYPE_CHECKING:
    from types_boto3_s3.client import S3Client

pytest_plugins = ("tests.runner_fixtures",)
"""The Docker engine's fixtures, one definition for the session: a session fixture imported
into each module that uses it is made once per module (the sandbox images built each time)."""

PG_URL = os.environ.get("ARGUSIC_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")

# No time limit per example: a property is about what comes out, not how fast (speed targets
# live in `make bench`); on a loaded machine a planted-secret example failed once and passed on
# every rerun, as only the default 200 ms limit explains.
hypothesis_settings.register_profile("argusic", deadline=None, print_blob=True)
hypothesis_settings.load_profile("argusic")
REQUIRE_SERVICES = os.environ.get("ARGUSIC_REQUIRE_SERVICES") == "1"


@cache
def postgres_unavailable() -> str | None:
    try:
        with psycopg.connect(PG_URL, connect_timeout=5):
            return None
    except psycopg.Error as e:
        return f"PostgreSQL at {PG_URL} is unavailable: {e}"


def require_postgres() -> None:
    require(postgres_unavailable())


def require(reason: str | None) -> None:
    """Nothing when the service is there; else a failure under `make test`, a loud skip outside."""
    if reason is None:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (ARGUSIC_REQUIRE_SERVICES=1: this must run, not skip)")
    pytest.skip(f"SKIPPED LOUDLY: {reason}; run `make test` to start it")


# --- the replication tests' primary and hot standby (scripts/ensure-standby.sh) ---------------

PRIMARY_URL = os.environ.get(
    "ARGUSIC_TEST_PRIMARY_URL", "postgresql://postgres@127.0.0.1:55432/test"
)
STANDBY_URL = os.environ.get(
    "ARGUSIC_TEST_STANDBY_URL", "postgresql://postgres@127.0.0.1:55433/test"
)


@cache
def standby_unavailable() -> str | None:
    try:
        with psycopg.connect(PRIMARY_URL, connect_timeout=5):
            pass
        with psycopg.connect(STANDBY_URL, connect_timeout=5) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
    except psycopg.Error as e:
        return f"the primary {PRIMARY_URL} or its standby {STANDBY_URL} is unavailable: {e}"
    return None if row == (True,) else f"{STANDBY_URL} is not a hot standby"


@pytest.fixture
def replicated_schema() -> Iterator[str]:
    """A fresh schema on the replication primary (PRIMARY_URL), which its hot standby
    (STANDBY_URL) follows; dropped afterwards."""
    require(standby_unavailable())
    schema = f"t_{uuid.uuid4().hex[:16]}"
    yield schema
    with psycopg.connect(PRIMARY_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


# --- SeaweedFS's S3 gateway (scripts/ensure-seaweedfs.sh) ------------------------------------

S3_ENDPOINT = os.environ.get("ARGUSIC_TEST_S3_ENDPOINT", "http://127.0.0.1:18333")
S3_BUCKET = "argusic-test"
S3_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "argusic-test",
    "AWS_SECRET_ACCESS_KEY": "argusic-test-secret",
}
"""The test gateway's one identity (scripts/ensure-seaweedfs.sh): test-only values."""


@cache
def s3_unavailable() -> str | None:
    try:
        httpx.get(f"{S3_ENDPOINT}/status", timeout=5).raise_for_status()
    except httpx.HTTPError as e:
        return f"the S3 gateway at {S3_ENDPOINT} is unavailable: {e}"
    return None


def s3_client(endpoint: str = S3_ENDPOINT) -> S3Client:
    """A client of the test gateway at `endpoint`, with its credentials."""
    with pytest.MonkeyPatch.context() as env:
        for name, value in S3_CREDENTIALS.items():
            env.setenv(name, value)
        return connect(endpoint)


@pytest.fixture
def s3_store() -> Iterator[S3ArtifactStore]:
    """An S3 artifact store of its own (a fresh prefix of the test bucket) on the test gateway;
    its objects, and the parts of uploads cut short, are deleted afterwards."""
    require(s3_unavailable())
    client = s3_client()
    with suppress(client.exceptions.BucketAlreadyOwnedByYou):
        client.create_bucket(Bucket=S3_BUCKET)
    store = S3ArtifactStore(client, S3_BUCKET, f"t-{uuid.uuid4().hex[:16]}")
    yield store
    listed = client.get_paginator("list_objects_v2").paginate(Bucket=S3_BUCKET, Prefix=store.prefix)
    for page in listed:
        for item in page.get("Contents", []):
            client.delete_object(Bucket=S3_BUCKET, Key=item["Key"])
    cut = client.list_multipart_uploads(Bucket=S3_BUCKET, Prefix=store.prefix)  # killed writes'
    for upload in cut.get("Uploads", []):
        client.abort_multipart_upload(
            Bucket=S3_BUCKET, Key=upload["Key"], UploadId=upload["UploadId"]
        )


@pytest.fixture
def own_gateway(s3_store: S3ArtifactStore, tmp_path: Path) -> Iterator[Gateway]:
    """An S3 gateway of the test's own, started, in front of the shared SeaweedFS filer (the
    objects it stores are `s3_store`'s too): the test may kill it and start it again."""
    gateway = Gateway(tmp_path, S3_CREDENTIALS)
    gateway.start()
    yield gateway
    gateway.kill()


@pytest.fixture
def s3_env(s3_store: S3ArtifactStore) -> dict[str, str]:
    """What a subprocess's environment adds to store its evidence in `s3_store`."""
    return {
        "ARGUSIC_ARTIFACTS_URL": f"s3://{s3_store.bucket}/{s3_store.prefix}",
        "ARGUSIC_S3_ENDPOINT": S3_ENDPOINT,
        **S3_CREDENTIALS,
    }


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema, dropped afterwards (with the append-only tables in it)."""
    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    yield schema
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Override with `@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)`."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/ledger.db"
    schema = request.getfixturevalue("pg_schema")
    return f"{PG_URL}?schema={schema}"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=database_url, home=tmp_path / "home", log_format="json")


@pytest.fixture
def ledger(settings: Settings) -> Iterator[Ledger]:
    book, _ = init(settings)
    yield book
    book.recorder.close()


@pytest.fixture
def cli_env(settings: Settings) -> dict[str, str]:
    """The environment a subprocess needs to use the same ledger."""
    return {
        **os.environ,
        "ARGUSIC_DATABASE_URL": settings.database_url,
        "ARGUSIC_HOME": str(settings.home),
        "ARGUSIC_LOG_FORMAT": "json",
    }


def edition(n: int) -> EditionDrafted:
    """A distinct, valid event for tests that need many."""
    return EditionDrafted(version=f"9.{n}", drafted=date(2026, 9, 1), summary=f"test edition {n}")


def append_editions(book: Ledger, start: int, count: int) -> None:
    book.append([NewEvent(edition(n), 1) for n in range(start, start + count)])


FIXED_TIME = datetime(2026, 10, 9, 10, 0, tzinfo=UTC)


def raw_execute(settings: Settings, *statements: str) -> None:
    """Run SQL straight on the database, as someone with database access (not the ledger)."""
    url = settings.database_url
    if url.startswith("sqlite:///"):
        import sqlite3

        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        conn.create_function("sha256", 1, lambda data: hashlib.sha256(data).digest())
        try:
            for statement in statements:
                conn.execute(statement)
        finally:
            conn.close()
        return
    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        for statement in statements:
            conn.execute(statement.encode())


ARGUSIC = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "argusic")


def argusic(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `argusic` console script in a subprocess."""
    return subprocess.run(
        [ARGUSIC, *args],
        env=env,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
        check=False,
    )


def is_postgres(settings: Settings) -> bool:
    return settings.database_url.startswith("postgresql")


DEMO = Path(__file__).resolve().parents[1] / "scripts" / "demo"


@pytest.fixture(scope="session")
def demo_size(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many events the bundled demo appends (its records, their evidence's events and its
    operator's actions)."""
    folder = tmp_path_factory.mktemp("demo")
    settings = Settings(f"sqlite:///{folder}/demo.db", folder / "home", "json")
    book, _ = init(settings)
    report = load_bundled_demo(settings, book)
    book.close()
    return report.ledger_size


def load_bundled_demo(settings: Settings, ledger: Ledger) -> DemoReport:
    """`argusic demo`, in process."""
    from api.services.demo import load_demo
    from api.wiring import Argusic

    argusic = Argusic(settings, ledger)
    return load_demo(
        DEMO,
        ledger=ledger,
        store=argusic.store,
        banners=argusic.banners,
        home=settings.home,
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test` spreads the tests over the cores (pytest-xdist, `--dist loadgroup`); tests that
    share one outside resource run in one process, one after the other: the Docker engine's
    sandboxes (a sweep removes every sandbox its own ledger does not own), the browser session of
    the page tests, the fault tests' database restarts and mounts."""
    docker = ("test_docker_sandbox.py", "test_runner.py", "test_runner_claims.py")
    for item in items:
        path = item.path.as_posix()
        if item.path.name in docker or "images" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("docker"))
        elif path.endswith(
            (
                "tests/api/web/test_pages_in_browser.py",
                "tests/api/web/test_methodology_in_browser.py",
            )
        ):
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif "/tests/faults/" in path:
            item.add_marker(pytest.mark.xdist_group("faults"))
