"""Issue 26, what an adversarial probe found of section 17, end to end on SQLite and PostgreSQL:
a run's key in its report recorded for ever and shown; credentials of other forms served; the
SHA-256 of what arrived published beside a mask that kept each secret's length; an archive of
keys served unopened; artifacts and the SQLite file readable by anyone. Each test plants what
the probe planted and looks where the probe looked."""

from __future__ import annotations

import gzip
import hashlib
import json
import stat
from pathlib import Path
from typing import Any

import msgspec
from litestar.testing import TestClient

from api.services.record_run import RunRecording
from domain.events import TimelineRecorded
from domain.evidence.asciicast import timings
from domain.runner.record import read_report
from domain.runs import RunRecord
from tests.api.test_evidence import Evidence, client, evidence
from tests.conftest import is_postgres
from tests.domain.test_archives import KEY, tar_gz_holding_a_zip_with_keys, zipped
from tests.domain.test_redaction_forms import KNOWN_KEY_PROBES, PROBES, RUN_KEY
from tests.evidence_corpus import PREAMBLE, TAIL, log, recording

__all__ = ["client", "evidence"]  # fixtures: the public's API over `Evidence`
HTML = {"Accept": "text/html"}
MARKER = "[REDACTED]"
QUIET_LOG = log([*PREAMBLE, *TAIL])
QUIET_CAST = recording([*PREAMBLE, *TAIL])


def fragments(secret: str, size: int = 12) -> list[str]:
    """The secret whole, and every run of `size` characters of it."""
    return [secret] + [secret[i : i + size] for i in range(len(secret) - size + 1)]


def public_answers(client: TestClient[Any], run_id: str) -> dict[str, str]:
    """Every public answer about a run: its page, its document, its trace, each evidence file
    with its headers."""
    answers = {
        "page": client.get(f"/runs/{run_id}", headers=HTML).text,
        "document": client.get(f"/runs/{run_id}").text,
        "trace": client.get(f"/runs/{run_id}/trace").text,
    }
    for kind in ("log", "cast"):
        answer = client.get(f"/runs/{run_id}/evidence/{kind}")
        answers[kind] = json.dumps(dict(answer.headers)) + answer.text
    return answers


def ledger_bytes(evidence: Evidence) -> bytes:
    return b"".join(bytes(row[4]) for row in evidence.ledger.rows())


def test_a_runs_key_in_its_report_is_neither_recorded_nor_shown(
    evidence: Evidence,
    client: TestClient[Any],
) -> None:
    """The probe: the run's own key written into `verified_how` or `final_state` was in every
    `RunRecorded` (append-only: never removable) and on the public run page."""
    record = evidence.run("r1", QUIET_CAST, QUIET_LOG, model_key=RUN_KEY)
    record["report"]["verified_how"] = f"curl -H 'Authorization: Bearer {RUN_KEY}' /v1 -> 200"
    record["report"]["final_state"] = f"It works; the key was {RUN_KEY}, and PGPASSWORD=hunter2"
    record["project"]["description"] = f"A client for {KNOWN_KEY_PROBES['run-key-base64']}"
    record["project"]["repo"] = "https://bob:Autumn2025@example.org/r.git"
    evidence.write_and_ingest([record])
    leaks = [*fragments(RUN_KEY), *fragments(KNOWN_KEY_PROBES["run-key-base64"])]
    leaks += ["hunter2", "Autumn2025"]
    stored = ledger_bytes(evidence)
    assert [s for s in leaks if s.encode() in stored] == []
    for where, text in public_answers(client, "r1").items():
        assert [s for s in leaks if s in text] == [], where
    report = evidence.view("r1").run.report
    assert report.verified_how == f"curl -H 'Authorization: Bearer {MARKER}' /v1 -> 200"
    assert report.final_state == f"It works; the key was {MARKER}, and PGPASSWORD={MARKER}"
    redactions = {
        e["kind"]: e
        for e in evidence.events("r1")
        if e["type"] == "EvidenceTransformed" and e["transform"] == "security-redaction"
    }
    assert {k: redactions[k]["counts"] for k in redactions if k not in ("log", "cast")} == {
        "verified_how": {"run_model_key": 1},
        "final_state": {"password_assignment": 1, "run_model_key": 1},
        "project_description": {"run_model_key": 1},
        "project_repo": {"url_credential": 1},
    }
    assert all(e["input_sha256"] == "" for k, e in redactions.items() if k not in ("log", "cast"))


def test_the_runners_report_is_redacted_before_the_run_is_recorded(evidence: Evidence) -> None:
    """The runner reads the agent's /argusic/report.json and records the run through the same
    intake as `ingest`: the report it decodes is redacted before a `RunRecorded` is built."""
    written = {
        "installed": True,
        "started": True,
        "errors_found": 0,
        "errors_fixed": 0,
        "test_depth": "tier1_real",
        "verified_how": f"echo $OPENROUTER_API_KEY -> {RUN_KEY}",
        "final_state": f"mysql -u root -pAutumn2025 and {RUN_KEY[:30]}",
    }
    report, problem = read_report(json.dumps(written).encode())
    assert problem is None
    fields = evidence.run("r1", QUIET_CAST, QUIET_LOG, model_key=RUN_KEY)
    record = msgspec.convert({**fields, "report": msgspec.to_builtins(report)}, RunRecord)
    events = RunRecording(evidence.ledger, evidence.store, lambda _: [])(
        record, evidence.folder, 90.0
    )
    recorded = b"".join(msgspec.json.encode(e.event) for e in events)
    assert [s for s in [*fragments(RUN_KEY), "Autumn2025"] if s.encode() in recorded] == []
    texts = b"".join(
        msgspec.json.encode(e.event) for e in events if not isinstance(e.event, TimelineRecorded)
    )
    assert texts.count(MARKER.encode()) == 3  # the timeline quotes the served copy's markers


def test_every_credential_form_the_probe_found_is_masked_in_the_served_copies(
    evidence: Evidence,
    client: TestClient[Any],
) -> None:
    """Base64 and hex of the run's key, a bare AWS secret, passwords under the entropy
    threshold (`-pAutumn2025`, `--password=`, `PGPASSWORD=`, `postgres://app:...@`,
    `sshpass -p`): none in the served log or recording, each a marker, every event's time kept."""
    texts = [text for text, _ in PROBES.values()]
    texts += [f"encoded: {encoded}\n" for encoded in KNOWN_KEY_PROBES.values()]
    cast = recording([*PREAMBLE, *(t.replace("\n", "\r\n") for t in texts), *TAIL])
    evidence.write_and_ingest([evidence.run("r1", cast, log(texts), model_key=RUN_KEY)])
    answers = public_answers(client, "r1")
    secrets = [secret for _, secret in PROBES.values()] + list(KNOWN_KEY_PROBES.values())
    for kind in ("log", "cast"):
        assert [s for s in secrets if s in answers[kind]] == [], kind
        assert answers[kind].count(MARKER) >= len(texts), kind
    assert timings([client.get("/runs/r1/evidence/cast").content]) == timings([cast])


def test_no_public_answer_carries_the_hash_of_what_was_redacted(
    evidence: Evidence,
    client: TestClient[Any],
) -> None:
    """The probe recovered `Summer2024!` in 679 guesses from the page's SHA-256 of the file as
    it arrived and a mask of the password's length. Now the mask is a marker, and no answer (nor
    the ledger) holds a hash of the bytes that held it."""
    arrived = {
        "log": log([*PREAMBLE, "$ PGPASSWORD=Summer2024! psql -h db\n", *TAIL]),
        "cast": recording([*PREAMBLE, "$ mysql -u app -pSummer2024! db\r\n", *TAIL]),
    }
    evidence.write_and_ingest(
        [evidence.run("r1", arrived["cast"], arrived["log"], model_key=RUN_KEY)]
    )
    hashes = [hashlib.sha256(content).hexdigest() for content in arrived.values()]
    stored = ledger_bytes(evidence)
    assert [h for h in hashes if h.encode() in stored] == []
    for where, text in public_answers(client, "r1").items():
        assert [h for h in hashes if h in text] == [], where
        assert "Summer2024!" not in text, where
    served = client.get("/runs/r1/evidence/log").text
    assert "$ PGPASSWORD=[REDACTED] psql -h db\n" in served
    copies = evidence.view("r1").evidence
    header = client.get("/runs/r1/evidence/log").headers["x-argusic-raw-sha256"]
    assert header == copies["log"].raw_sha256 == copies["log"].stored_sha256


def test_an_archive_of_keys_in_evidence_is_not_kept_and_its_run_is_repeated(
    evidence: Evidence,
    client: TestClient[Any],
) -> None:
    """The probe: a tar.gz holding a zip with keys, named as a run's log, was served unscanned.
    A log printing a zip is the same case."""
    archive = tar_gz_holding_a_zip_with_keys()
    printed = b"$ cat secrets.zip\n" + zipped("keys.env", b"KEY=" + KEY) + b"\n"
    evidence.in_use()
    evidence.write_and_ingest(
        [
            evidence.run("r1", QUIET_CAST, archive, model_key=RUN_KEY),
            evidence.run("r2", QUIET_CAST, printed),
            evidence.run("r3", gzip.compress(QUIET_CAST), QUIET_LOG),
        ]
    )
    for run_id, kind, how in [("r1", "log", "is a gzip"), ("r2", "log", "holds a zip")]:
        view = evidence.view(run_id)
        assert how in view.evidence[kind].withheld
        assert view.rerun_requested.startswith(f"{kind} withheld: the {kind} {how} archive")
        assert view.valid is False
        for each in ("log", "cast"):
            answer = client.get(f"/runs/{run_id}/evidence/{each}")
            assert answer.status_code == 451
            assert how in answer.json()["detail"]
    assert "the cast is a gzip archive" in evidence.view("r3").evidence["cast"].withheld
    kept = [
        p.read_bytes() for p in (evidence.settings.home / "artifacts").rglob("*") if p.is_file()
    ]
    assert not [k for k in kept if archive in k or printed in k or KEY in k]
    assert not [k for k in kept if k.startswith((b"\x1f\x8b", b"PK\x03\x04"))]


def test_artifacts_and_the_sqlite_file_are_readable_by_their_owner_only(
    evidence: Evidence,
) -> None:
    evidence.write_and_ingest([evidence.run("r1", QUIET_CAST, QUIET_LOG)])
    store = evidence.settings.home / "artifacts"
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in [store, *store.rglob("*")]}
    assert {oct(m) for p, m in modes.items() if p.is_file()} == {"0o400"}
    assert {oct(m) for p, m in modes.items() if p.is_dir()} == {"0o700"}
    if not is_postgres(evidence.settings):
        database = Path(evidence.settings.database_url.removeprefix("sqlite:///"))
        files = [database, *database.parent.glob(database.name + "-*")]
        assert {oct(stat.S_IMODE(f.stat().st_mode)) for f in files} == {"0o600"}
