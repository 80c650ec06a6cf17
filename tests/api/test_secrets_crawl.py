"""Issue 26's acceptance for section 17, on SQLite and PostgreSQL: a scenario with each
credential form in each text of a run's report (and the other texts a run record carries) and
in each kind of evidence (a log, a recording's events and header, an archive), approved for the
public; then a crawl of every public page and document, from `/` by its links, and of each
run's document, trace and evidence, finds none of them, whole, in part, or base64-, hex- or
URL-encoded; nor does any row of any table of the database, nor any file of the artifact store
(but the generated private keys the seed keeps in the evidence layer)."""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, urlsplit

import psycopg
import pytest
from litestar.testing import TestClient
from psycopg import sql

from api.http import create_app
from api.wiring import Argusic, Settings
from ledger.ledger import Ledger
from tests.api.test_evidence import Evidence, visible
from tests.api.web.browser import parse
from tests.conftest import is_postgres
from tests.domain.test_archives import tar_gz_holding_a_zip_with_keys
from tests.domain.test_redaction_forms import KNOWN_KEY_PROBES, PROBES, RUN_KEY
from tests.evidence_corpus import FORMS, PREAMBLE, TAIL, log, recording

HTML = {"Accept": "text/html"}
TEXTS = ("verified_how", "final_state", "invalid_reason", "description", "repo")
"""The free texts of a run record: its report's two, why it was cut short, its project's."""


class Form(NamedTuple):
    name: str
    text: str
    secrets: list[str]
    generated_key: bool = False
    """A private key block: the seed keeps its body in the evidence layer (masked when served)."""


def forms() -> list[Form]:
    """Every credential form: the corpus's, the probe's, the run's key in each encoding."""
    found = []
    for number, (name, make) in enumerate(FORMS.items()):
        plant = make(random.Random(f"crawl-{name}-{number}"))
        found.append(Form(name, plant.text, plant.secrets, name == "pem_private_key"))
    found += [Form(name, text, [secret]) for name, (text, secret) in PROBES.items()]
    found += [
        Form(name, f"encoded: {value}\n", [value]) for name, value in KNOWN_KEY_PROBES.items()
    ]
    return [*found, Form("run-key", f"the key is {RUN_KEY}\n", [RUN_KEY])]


FORMS_PLANTED = forms()


def spelled(secret: str) -> set[str]:
    """A secret and its encodings: base64 (and URL-safe), hex, URL-encoded."""
    raw = secret.encode()
    return {
        secret,
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        raw.hex(),
        quote(secret, safe=""),
    }


def needles(*, generated_keys: bool = True) -> set[str]:
    """What may appear nowhere: every secret and encoding, whole and (12 characters or more)
    every run of 12 characters of it."""
    found: set[str] = set()
    for form in FORMS_PLANTED:
        if form.generated_key and not generated_keys:
            continue
        for secret in form.secrets:
            for spelling in spelled(secret):
                found.add(spelling)
                found.update(spelling[i : i + 12] for i in range(len(spelling) - 11))
    return found


def leaks(text: str, looked_for: set[str]) -> list[str]:
    return sorted(needle for needle in looked_for if needle in text)


@pytest.fixture
def scenario(ledger: Ledger, tmp_path: Path, settings: Settings) -> Evidence:
    """A run per form, each of its texts and each of its files carrying the form; a run whose
    log is a tar.gz holding a zip of keys; all approved for the public."""
    evidence = Evidence(ledger, tmp_path, settings)
    records = []
    for number, form in enumerate(FORMS_PLANTED):
        events = [*PREAMBLE, form.text.replace("\n", "\r\n"), *TAIL]
        cast = recording(events, 2 + number % 2, {"command": f"agent --note '{form.text}'"})
        record = evidence.run(f"c{number:02d}", cast, log(events), model_key=RUN_KEY)
        record["project"] = {**record["project"], "id": f"crawl/{form.name}"}
        record["project"].update(description=form.text, repo=form.text)
        record["report"].update(verified_how=form.text, final_state=form.text)
        record["invalid_reason"] = form.text
        records.append(record)
    quiet = recording([*PREAMBLE, *TAIL])
    archive = evidence.run("c-archive", quiet, tar_gz_holding_a_zip_with_keys(), model_key=RUN_KEY)
    evidence.write_and_ingest([*records, archive])
    return evidence


@pytest.fixture
def client(scenario: Evidence) -> Iterator[TestClient[Any]]:
    with TestClient(app=create_app(Argusic(scenario.settings, scenario.ledger))) as answers:
        yield answers


def crawl(client: TestClient[Any], run_ids: list[str]) -> dict[str, str]:
    """Every public answer: each page reached from `/` by its links (and the JSON document at
    the same path), each run's document, page, trace, log and recording; by path, the headers
    and body."""
    starts = ["/", "/leaderboard?cycle=2026-09", "/projects"]
    for run_id in run_ids:
        starts += [f"/runs/{run_id}", f"/runs/{run_id}/trace"]
        starts += [f"/runs/{run_id}/evidence/log", f"/runs/{run_id}/evidence/cast"]
    answers: dict[str, str] = {}
    queue = list(starts)
    while queue:
        path = queue.pop()
        if path in answers:
            continue
        answer = client.get(path, headers=HTML)
        answers[path] = json.dumps(dict(answer.headers)) + answer.text
        if answer.headers.get("content-type", "").startswith("text/html"):
            document = client.get(path, params={"format": "json"})
            answers[f"{path} (json)"] = json.dumps(dict(document.headers)) + document.text
            for link in parse(answer.text).links:
                parts = urlsplit(link)
                if not parts.netloc and parts.path.startswith("/"):
                    queue.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return answers


def database_rows(settings: Settings) -> Iterator[tuple[str, str]]:
    """Every row of every table of the ledger's database, as text, by table."""
    url = settings.database_url
    if not is_postgres(settings):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"))
        try:
            tables = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            for table in tables:
                for row in conn.execute(f'SELECT * FROM "{table}"'):
                    yield table, repr(row) + "".join(_text(v) for v in row)
        finally:
            conn.close()
        return
    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
        ).fetchall()
        for (table,) in tables:
            query = sql.SQL("SELECT * FROM {}.{}").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            for row in conn.execute(query):
                yield table, repr(row) + "".join(_text(v) for v in row)


def _text(value: object) -> str:
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def test_no_credential_form_is_in_any_public_answer_the_database_or_the_artifact_store(
    scenario: Evidence, client: TestClient[Any]
) -> None:
    run_ids = [f"c{n:02d}" for n in range(len(FORMS_PLANTED))] + ["c-archive"]
    looked_for = needles()
    # the scenario is what it says: each form in each text as given, and in each file
    assert len(FORMS_PLANTED) >= 60
    answers = crawl(client, run_ids)
    assert {f"/runs/{r}" for r in run_ids} <= set(answers)
    assert len([path for path in answers if path.startswith("/projects/crawl/")]) >= 60
    found = {path: leaks(text, looked_for) for path, text in answers.items()}
    assert {path: hits for path, hits in found.items() if hits} == {}
    # what each form became: a marker, counted, in every text and every file
    view = scenario.view("c00")
    assert "[REDACTED]" in view.run.report.verified_how
    assert client.get("/runs/c-archive/evidence/log").status_code == 451
    tables = set()
    for table, row in database_rows(scenario.settings):
        tables.add(table)
        assert leaks(row, looked_for) == [], table
    assert {"ledger_events", "projection_state"} <= tables
    kept = [p for p in (scenario.settings.home / "artifacts").rglob("*") if p.is_file()]
    assert len(kept) >= 2 * len(FORMS_PLANTED)
    at_rest = needles(generated_keys=False)
    for path in kept:
        data = path.read_bytes()
        assert leaks(visible(data) + _text(data), at_rest) == [], path.name
