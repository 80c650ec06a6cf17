"""Random histories of ingest, review, dispute, publication and rebuild (issue 16, item 2), on
SQLite and PostgreSQL, with hypothesis' stateful testing. After every step: positions gapless,
`ledger verify` passes, no secret (a run's model key planted in its log and recording, an
operator's private key) in any byte stored under ARGUSIC_HOME or in the database, and a refused
action appends nothing; at every rebuild, the model folded from zero is byte for byte the one
kept incrementally; every answer read as of a position is read again at the end, unchanged,
and every page and file the public is served is searched for the secrets."""

from __future__ import annotations

import base64
import hashlib
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from litestar.testing import TestClient
from psycopg import sql

from api.http import create_app
from api.services.maintenance import rebuild
from api.services.operators import operator_signer
from api.services.queries import MethodologyQueries
from api.services.reader import ProjectionReader
from api.wiring import Argusic, Settings, init
from domain.errors import Rejected
from ledger.codec import encode_json
from ledger.export import export_lines
from ledger.verify import verify
from projections.methodology import MethodologyProjection
from tests.api.world import OWNER, World, review
from tests.conftest import PG_URL, require_postgres
from tests.faults.observed import SECRET_KEY
from tests.records import run

PROJECTS = ["octo/a", "octo/b"]
AGENTS = ["agent-a", "agent-b"]
SCORES = ["100", "92", "no-start", "30", "T"]
"""Failures the more often, so that projects come under review (section 15)."""
CYCLE = "2026-09"
RUNS = st.lists(
    st.tuples(
        st.sampled_from(PROJECTS),
        st.sampled_from(AGENTS),
        st.sampled_from(SCORES),
        st.sampled_from(["", "log", "cast", "log+cast"]),  # which files carry the model key
    ),
    min_size=1,
    max_size=4,
)


def needles(secret: bytes) -> list[bytes]:
    """A secret as it could sit in a file, a SQLite page or a PostgreSQL dump: raw, in hex
    (bytea as text) and in base64."""
    return [secret, secret.hex().encode(), base64.b64encode(secret)]


class History(RuleBasedStateMachine):
    """One ledger per example, on the backend the test names."""

    backend = "sqlite"

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="argusic-stateful-"))
        self.schema = f"t_{uuid.uuid4().hex[:16]}"
        url = (
            f"sqlite:///{self.folder}/ledger.db"
            if self.backend == "sqlite"
            else f"{PG_URL}?schema={self.schema}"
        )
        self.settings = Settings(url, self.folder / "home", "json")
        self.ledger, _ = init(self.settings)
        self.world = World(self.ledger, self.folder)  # the editions in, files read from folder
        keyed = f"$ export OPENROUTER_API_KEY={SECRET_KEY}\ncurl -H 'Authorization: {SECRET_KEY}'\n"
        (self.folder / "keyed.log").write_text(keyed)
        event = msgspec.json.encode([0.5, "o", f"key {SECRET_KEY} set\r\n"]).decode()
        (self.folder / "keyed.cast").write_text(
            f'{{"version": 2, "width": 80, "height": 24}}\n{event}\n'
        )
        self.world.act({"action": "approve_publication", "position": self.ledger.size()})
        seed = operator_signer(self.settings.home, OWNER).private_key.private_bytes_raw()
        self.secrets = needles(SECRET_KEY.encode()) + needles(seed) + needles(b"\x01" + seed)
        self.runs: list[str] = []
        self.incremental = ProjectionReader(self.ledger, MethodologyProjection())
        self.answered: dict[int, bytes] = {}

    def teardown(self) -> None:
        try:
            for position, answer in self.answered.items():
                assert self.answers_as_of(position) == answer, f"the answer as of {position}"
        finally:
            self.ledger.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.backend == "postgresql":
                with psycopg.connect(PG_URL, autocommit=True) as conn:
                    drop = sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE")
                    conn.execute(drop.format(sql.Identifier(self.schema)))

    def refused_or_done(self, action: dict[str, Any]) -> None:
        size = self.ledger.size()
        try:
            self.world.act(action)
        except Rejected:
            assert self.ledger.size() == size, f"a refused {action['action']} appended"

    @initialize(runs=RUNS)
    def first_runs(self, runs: list[tuple[str, str, str, str]]) -> None:
        """Every agent fails the first project first: it is under review until a pass or a
        review settles it."""
        failed = [(PROJECTS[0], agent, "no-start", "") for agent in AGENTS]
        self.ingest_runs(failed + runs)

    @rule(runs=RUNS)
    def ingest_runs(self, runs: list[tuple[str, str, str, str]]) -> None:
        records = []
        for project, agent, score, keyed in runs:
            run_id = f"r-{len(self.runs):03d}"
            log = "keyed.log" if "log" in keyed else "run.log"
            cast = "keyed.cast" if "cast" in keyed else "run.cast"
            record = run(run_id, project, agent, score, log=log, cast=cast)
            if keyed:
                record["model_key"] = SECRET_KEY
            records.append(record)
            self.runs.append(run_id)
        self.world.ingest(records)

    @rule(pick=st.integers(min_value=0), finding=st.sampled_from(["environment", "project"]))
    def review_a_project(self, pick: int, finding: str) -> None:
        under_review = sorted(self.incremental.latest().under_review(CYCLE))
        projects = under_review + PROJECTS  # one not under review is refused
        self.refused_or_done(review(projects[pick % len(projects)], finding, "seen by a person"))

    @precondition(lambda self: self.runs)
    @rule(pick=st.integers(min_value=0))
    def open_a_dispute(self, pick: int) -> None:
        run_id = self.runs[pick % len(self.runs)]
        claim = {"claimant": "a lab", "claim": "the recording shows a pass"}
        self.refused_or_done({"action": "dispute_open", "run_id": run_id} | claim)

    @rule(pick=st.integers(min_value=0), outcome=st.sampled_from(["upheld", "rerun"]))
    def resolve_a_dispute(self, pick: int, outcome: str) -> None:
        disputes = sorted(self.incremental.latest().disputes) or ["never-opened"]
        dispute = disputes[pick % len(disputes)]  # a resolved one is refused
        self.refused_or_done(
            {"action": "dispute_resolve", "dispute": dispute, "outcome": outcome, "note": "n"}
        )

    @rule()
    def publish(self) -> None:
        self.world.act({"action": "approve_publication", "position": self.ledger.size()})

    @rule()
    def rebuild_the_read_model(self) -> None:
        kept = hashlib.sha256(encode_json(self.incremental.latest())).hexdigest()
        rebuilt = rebuild(self.ledger)
        assert (rebuilt.position, rebuilt.sha256) == (self.ledger.size(), kept)

    @rule()
    def read_as_the_public(self) -> None:
        with TestClient(app=create_app(Argusic(self.settings, self.ledger))) as client:
            paths = ["/leaderboard?cycle=2026-09", "/projects", "/methodology"]
            for run_id in self.runs:
                paths += [f"/runs/{run_id}", f"/runs/{run_id}/trace"]
                paths += [f"/runs/{run_id}/evidence/{kind}" for kind in ("log", "cast")]
            for path in paths:
                answer = client.get(path)
                assert answer.status_code in {200, 404, 451}, (path, answer.text)
                self.assert_secret_free(answer.content, path)

    def answers_as_of(self, position: int) -> bytes:
        """What the operator's view answers as of `position`, read afresh: the leaderboard, the
        projects and every run recorded by then."""
        queries = MethodologyQueries(self.ledger)
        runs = self.incremental.latest().runs
        recorded = sorted(r for r, kept in runs.items() if kept.position <= position)
        answers = [queries.leaderboard(CYCLE, position), queries.projects(position)]
        return encode_json(answers + [queries.run(r, position) for r in recorded])

    def assert_secret_free(self, stored: bytes, where: str) -> None:
        for needle in self.secrets:
            assert needle not in stored, f"a secret in {where}"

    @invariant()
    def positions_are_gapless_and_verified(self) -> None:
        size = self.ledger.size()
        assert [row.position for row in self.ledger.rows()] == list(range(1, size + 1))
        report = verify(self.ledger)
        assert report.ok, report.problems
        self.answered.setdefault(size, self.answers_as_of(size))

    @invariant()
    def no_secret_is_stored(self) -> None:
        for path in sorted((self.settings.home).rglob("*")):
            if path.is_file() and path.parent.name != "operators":  # the owner's own key file
                self.assert_secret_free(path.read_bytes(), str(path))
        for path in self.folder.glob("ledger.db*"):  # the database, its journal included
            self.assert_secret_free(path.read_bytes(), path.name)
        if self.backend == "postgresql":
            self.assert_secret_free(self.dump(), "the database")
        self.assert_secret_free(b"".join(export_lines(self.ledger)), "the export")

    def dump(self) -> bytes:
        """Every row of every table of the schema, as PostgreSQL writes it out."""
        dumped = []
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (self.schema,)
            ).fetchall()
            for (table,) in tables:
                copy = sql.SQL("COPY {}.{} TO STDOUT").format(
                    sql.Identifier(self.schema), sql.Identifier(table)
                )
                with conn.cursor().copy(copy) as rows:
                    dumped += [bytes(chunk) for chunk in rows]
        return b"".join(dumped)


@pytest.mark.slow
@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def test_random_histories_keep_the_ledger_whole_its_answers_stable_and_no_secret(
    backend: str,
) -> None:
    if backend == "postgresql":
        require_postgres()
    machine = type(f"History_{backend}", (History,), {"backend": backend})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=8,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
