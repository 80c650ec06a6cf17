"""The `argusic` command as a user runs it: JSON documents, exit codes 0/1/2/3."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger.note import Verifier, open_checkpoint
from tests.conftest import argusic


def run_json(env: dict[str, str], *args: str, code: int = 0) -> dict[str, object]:
    result = argusic(env, *args, "--json")
    assert result.returncode == code, result.stderr
    documents = result.stdout.strip().splitlines()
    assert len(documents) == 1, "exactly one JSON document on stdout"
    parsed: dict[str, object] = json.loads(documents[0])
    return parsed


@pytest.fixture
def demo_env(cli_env: dict[str, str]) -> dict[str, str]:
    run_json(cli_env, "init")
    run_json(cli_env, "demo")
    return cli_env


def test_init_is_idempotent(cli_env: dict[str, str]) -> None:
    first = run_json(cli_env, "init")
    assert first["applied_migrations"] == ["0001_ledger", "0002_projections", "0003_projection_lz4"]
    second = run_json(cli_env, "init")
    assert second["applied_migrations"] == []
    assert second["public_key"] == first["public_key"]


def test_commands_before_init_are_usage_errors(cli_env: dict[str, str]) -> None:
    document = run_json(cli_env, "ledger", "checkpoint", code=2)
    assert "argusic init" in str(document["error"])


def test_demo_loads_the_changelog_editions(demo_env: dict[str, str]) -> None:
    editions = run_json(demo_env, "editions")["editions"]
    assert isinstance(editions, list)
    drafted = {e["version"]: e["drafted"] for e in editions}
    decided = {e["version"]: e["decided"] for e in editions if e["decided"]}
    assert decided == {"0.2": "2026-08-29", "0.3": "2026-08-30", "0.4": "2026-08-30"}
    assert drafted == {
        "0.2": "2026-08-31",
        "0.3": "2026-08-31",
        "0.4": "2026-08-31",
        "1.0": "2026-08-31",
        "1.1": "2026-09-04",
        "1.2": "2026-09-05",
        "1.3": "2026-09-05",
        "1.4": "2026-09-07",
        "1.5": "2026-10-08",
    }
    assert [e["version"] for e in editions] == list(drafted)


def test_demo_goes_only_into_an_empty_ledger(demo_env: dict[str, str]) -> None:
    assert run_json(demo_env, "demo", "--if-empty")["appended"] == 0
    assert "empty ledger" in str(run_json(demo_env, "demo", code=1)["error"])


def test_checkpoint_is_a_signed_c2sp_note(demo_size: int, demo_env: dict[str, str]) -> None:
    document = run_json(demo_env, "ledger", "checkpoint")
    assert set(document) >= {"size", "root", "note", "public_key"}
    body = open_checkpoint(str(document["note"]), Verifier.parse(str(document["public_key"])))
    assert body.size == document["size"] == demo_size
    assert body.root.hex() == document["root"]
    origin, size = str(document["note"]).split("\n")[:2]
    assert (origin, size) == (Verifier.parse(str(document["public_key"])).name, str(demo_size))
    assert re.fullmatch(r"argusic\.local/ledger/[0-9a-f]{16}", origin)  # this ledger's own


def test_the_operator_reads_any_position_and_published_as_the_public_does(
    demo_size: int, demo_env: dict[str, str]
) -> None:
    """The CLI is the operator's: the whole ledger, any position; `--published` answers as the
    HTTP API does, as of approved positions and the tree approved (issue 26)."""
    board = run_json(demo_env, "leaderboard", "--cycle", "2026-10", "--published")
    approved = board["approved"]["position"]  # type: ignore[index]
    assert run_json(demo_env, "ledger", "checkpoint")["size"] == demo_size
    assert run_json(demo_env, "ledger", "checkpoint", "--published")["size"] == approved
    assert approved < demo_size
    head = str(demo_size)
    assert run_json(demo_env, "ledger", "proof", "inclusion", head)["size"] == demo_size
    refused = run_json(demo_env, "ledger", "proof", "inclusion", head, "--published", code=1)
    assert refused["error"] == f"position {head} is not in the tree of size {approved}"
    later = ("leaderboard", "--cycle", "2026-10", "--as-of", str(approved + 1))
    assert run_json(demo_env, *later)["as_of"] == approved + 1
    refused = run_json(demo_env, *later, "--published", code=1)
    assert str(refused["error"]).endswith(f"the nearest at or below it is {approved}")


def test_proof_documents(demo_env: dict[str, str]) -> None:
    inclusion = run_json(demo_env, "ledger", "proof", "inclusion", "3", "--size", "5")
    assert set(inclusion) == {"position", "size", "leaf_hash", "path"}
    assert (inclusion["position"], inclusion["size"]) == (3, 5)
    consistency = run_json(demo_env, "ledger", "proof", "consistency", "4", "9")
    assert set(consistency) == {"first", "second", "path"}


def test_a_position_outside_the_ledger_is_rejected(
    demo_size: int, demo_env: dict[str, str]
) -> None:
    beyond = str(demo_size + 1)
    document = run_json(demo_env, "ledger", "proof", "inclusion", beyond, code=1)
    assert document["ok"] is False
    assert f"position {beyond}" in str(document["error"])


def test_usage_errors_exit_2(demo_env: dict[str, str]) -> None:
    assert argusic(demo_env, "ledger", "proof", "inclusion", "x").returncode == 2
    assert argusic(demo_env, "no-such-command").returncode == 2


def test_a_bad_record_appends_nothing_and_is_named(
    demo_size: int, demo_env: dict[str, str], tmp_path: Path
) -> None:
    records = tmp_path / "editions.jsonl"
    records.write_text(
        '{"kind": "edition", "version": "2.0", "drafted": "2026-11-01", "summary": "ok"}\n'
        '{"kind": "edition", "version": "2.1", "drafted": "not a date", "summary": "bad"}\n'
    )
    document = run_json(demo_env, "ingest", str(records), code=1)
    rejections = document["rejections"]
    assert isinstance(rejections, list)
    assert [(r["line"], "drafted" in r["reason"]) for r in rejections] == [(2, True)]
    assert run_json(demo_env, "ledger", "checkpoint")["size"] == demo_size


def test_export_lines(demo_size: int, demo_env: dict[str, str]) -> None:
    result = argusic(demo_env, "ledger", "export", "--after", "7")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["position"] for line in lines] == list(range(8, demo_size + 1))
    assert list(lines[0]) == [
        "position",
        "type",
        "stream",
        "version",
        "recorded_at",
        "hash",
        "canonical",
    ]
    # the demo's SI-IQ calibration (two events) and three archived days of its inputs (two
    # events each), then the changelog's nine editions
    assert [line["type"] for line in lines[:2]] == ["SiiqPublished", "EditionDrafted"]
    assert lines[9]["stream"] == "edition:1.5"


def test_the_demo_shows_a_leaderboard_verdicts_editions_and_sources(
    demo_env: dict[str, str],
) -> None:
    board = run_json(demo_env, "leaderboard", "--cycle", "2026-09")
    rows = board["rows"]
    assert isinstance(rows, list)
    assert rows[0]["agent"] == "demo-agent-a"
    assert rows[0]["score"] == 100.0
    assert {"project": "demo/tile-server", "reason": "unstable"} in rows[0]["excluded"]
    editions = {e["version"]: e for e in run_json(demo_env, "editions")["editions"]}  # type: ignore[union-attr]
    assert (editions["1.2"]["effective_since"], editions["1.2"]["differs_from_drafted"]) == (
        "2026-09-04",
        True,
    )
    verdicts = {
        p: run_json(demo_env, "project", f"demo/{p}")["verdict"]
        for p in ("pixel-forge", "mock-api", "legacy-cli", "early-bird", "two-strikes", "half-way")
    }
    assert verdicts == {
        "pixel-forge": "works",
        "mock-api": "works_with_mocks",
        "legacy-cli": "could_not_verify",
        "early-bird": "not_yet_verified",
        "two-strikes": "could_not_verify",
        "half-way": "not_yet_verified",
    }
    sources = run_json(demo_env, "sources")["sources"]
    assert isinstance(sources, list)
    assert [s["status"] for s in sources].count("in_use") == 2
    assert run_json(demo_env, "run", "demo-999", code=1)["ok"] is False


def test_rebuilding_the_read_model_twice_gives_the_same_bytes(
    demo_size: int, demo_env: dict[str, str]
) -> None:
    first = run_json(demo_env, "rebuild")
    second = run_json(demo_env, "rebuild")
    assert first == second
    assert first["position"] == demo_size
