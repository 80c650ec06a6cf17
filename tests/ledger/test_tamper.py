"""An attacker with database access: the database refuses changes while its triggers stand,
and `argusic ledger verify` names the first bad position once they are dropped."""

from __future__ import annotations

import json
from typing import NoReturn

import pytest

from api.wiring import Settings
from ledger import ledger as ledger_module
from ledger.ledger import Ledger, LedgerIntegrityError
from ledger.verify import verify
from tests.conftest import append_editions, argusic, is_postgres, raw_execute

EVENTS = 40


@pytest.fixture
def filled(ledger: Ledger) -> Ledger:
    for start in range(0, EVENTS, 8):
        append_editions(ledger, start, 8)
    return ledger


def drop_triggers(settings: Settings, table: str) -> None:
    if is_postgres(settings):
        raw_execute(settings, f"DROP TRIGGER {table}_append_only ON {table}")
    else:
        raw_execute(settings, f"DROP TRIGGER {table}_no_update", f"DROP TRIGGER {table}_no_delete")


def verify_json(cli_env: dict[str, str], *args: str) -> tuple[int, dict[str, object]]:
    result = argusic(cli_env, "ledger", "verify", "--json", *args)
    return result.returncode, json.loads(result.stdout)


def flip_one_byte(settings: Settings, position: int) -> str:
    if is_postgres(settings):
        return (
            f"UPDATE ledger_events SET canonical = overlay(canonical placing "
            f"'\\x58'::bytea from 30 for 1) WHERE position = {position}"
        )
    return (
        f"UPDATE ledger_events SET canonical = CAST(substr(canonical, 1, 29) || X'58' || "
        f"substr(canonical, 31) AS BLOB) WHERE position = {position}"
    )


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger_events SET type = 'Forged' WHERE position = 3",
        "DELETE FROM ledger_events WHERE position = 3",
        "UPDATE ledger_checkpoints SET note = 'forged' WHERE size = 8",
        "DELETE FROM ledger_merkle_nodes",
        "DELETE FROM ledger_keys",
    ],
)
def test_the_database_refuses_updates_and_deletes(
    filled: Ledger, settings: Settings, statement: str
) -> None:
    with pytest.raises(Exception, match="append-only"):
        raw_execute(settings, statement)


# SQLite has no TRUNCATE: its DELETE trigger covers DELETE without WHERE (tested above).
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
@pytest.mark.parametrize("table", ["ledger_events", "ledger_merkle_nodes", "ledger_checkpoints"])
def test_postgres_refuses_truncate(filled: Ledger, settings: Settings, table: str) -> None:
    with pytest.raises(Exception, match="append-only"):
        raw_execute(settings, f"TRUNCATE {table}")


def test_verify_passes_on_an_untouched_ledger(filled: Ledger, cli_env: dict[str, str]) -> None:
    code, report = verify_json(cli_env)
    assert code == 0
    assert report["ok"] is True
    assert report["size"] == EVENTS
    assert report["first_bad_position"] is None


@pytest.mark.parametrize("position", [1, 5, 17, EVENTS])
def test_one_changed_byte_is_named(
    filled: Ledger, settings: Settings, cli_env: dict[str, str], position: int
) -> None:
    drop_triggers(settings, "ledger_events")
    raw_execute(settings, flip_one_byte(settings, position))
    code, report = verify_json(cli_env)
    assert code == 3
    assert report["ok"] is False
    assert report["first_bad_position"] == position


@pytest.mark.parametrize("position", [1, 7, EVENTS])
def test_a_deleted_row_is_named(
    filled: Ledger, settings: Settings, cli_env: dict[str, str], position: int
) -> None:
    drop_triggers(settings, "ledger_events")
    raw_execute(settings, f"DELETE FROM ledger_events WHERE position = {position}")
    code, report = verify_json(cli_env)
    assert code == 3
    assert report["first_bad_position"] == position


def test_a_rewritten_event_with_a_matching_hash_is_caught_by_the_signed_root(
    filled: Ledger, settings: Settings, cli_env: dict[str, str]
) -> None:
    drop_triggers(settings, "ledger_events")
    raw_execute(
        settings,
        flip_one_byte(settings, 12),
        "UPDATE ledger_events SET hash = sha256(canonical) WHERE position = 12",
    )
    code, report = verify_json(cli_env)
    assert code == 3
    assert report["first_bad_position"] == 16  # the first signed checkpoint covering it


def test_a_forged_checkpoint_is_named(
    filled: Ledger, settings: Settings, cli_env: dict[str, str]
) -> None:
    drop_triggers(settings, "ledger_checkpoints")
    raw_execute(
        settings,
        "UPDATE ledger_checkpoints SET note = replace(note, '\n24\n', '\n25\n') WHERE size = 24",
    )
    code, report = verify_json(cli_env)
    assert code == 3
    assert report["first_bad_position"] == 24


def test_an_inserted_event_under_no_checkpoint_is_named(
    filled: Ledger, settings: Settings, cli_env: dict[str, str]
) -> None:
    raw_execute(
        settings,
        "INSERT INTO ledger_events SELECT position + 1, stream || 'x', version, type, "
        f"canonical, hash FROM ledger_events WHERE position = {EVENTS}",
    )
    code, report = verify_json(cli_env)
    assert code == 3
    assert report["first_bad_position"] == EVENTS + 1


def verify_both(cli_env: dict[str, str], *args: str) -> tuple[int, dict[str, object]]:
    """The report of three worker processes (ranges split at checkpoints 8 and 24), after
    checking it names the first bad position that one process names (one process stops at
    the first bad event; each range goes on to its own)."""
    code, report = verify_json(cli_env, "--workers", "3", *args)
    single_code, single = verify_json(cli_env, "--workers", "1", *args)
    assert (code, report["first_bad_position"]) == (single_code, single["first_bad_position"])
    if report["ok"]:
        assert report == single
    return code, report


@pytest.mark.parametrize("position", [1, 8, 9, 12, 24, 25, 33, EVENTS])
def test_a_tampered_event_in_any_range_is_found_by_every_worker_split(
    filled: Ledger, settings: Settings, cli_env: dict[str, str], position: int
) -> None:
    drop_triggers(settings, "ledger_events")
    raw_execute(settings, flip_one_byte(settings, position))
    code, report = verify_both(cli_env)
    assert (code, report["first_bad_position"]) == (3, position)
    raw_execute(
        settings, f"UPDATE ledger_events SET hash = sha256(canonical) WHERE position = {position}"
    )
    code, report = verify_both(cli_env)
    # the first signed checkpoint covering it, checkpoints every 8 events
    assert (code, report["first_bad_position"]) == (3, -(-position // 8) * 8)


@pytest.mark.parametrize("size", [8, 24])
def test_a_forged_checkpoint_where_ranges_meet_is_found(
    filled: Ledger, settings: Settings, cli_env: dict[str, str], size: int
) -> None:
    drop_triggers(settings, "ledger_checkpoints")
    raw_execute(
        settings,
        "UPDATE ledger_checkpoints SET note = replace(note, "
        f"'\n{size}\n', '\n{size + 1}\n') WHERE size = {size}",
    )
    code, report = verify_both(cli_env)
    assert (code, report["first_bad_position"]) == (3, size)


def test_a_missing_merkle_node_in_a_later_range_is_found(
    filled: Ledger, settings: Settings, cli_env: dict[str, str]
) -> None:
    drop_triggers(settings, "ledger_merkle_nodes")
    raw_execute(settings, "DELETE FROM ledger_merkle_nodes WHERE level = 4 AND idx = 1")
    code, report = verify_both(cli_env)
    assert (code, report["first_bad_position"]) == (3, 32)


def test_a_range_covers_its_events_from_the_checkpoint_before_it(
    filled: Ledger, settings: Settings, cli_env: dict[str, str]
) -> None:
    code, report = verify_both(cli_env, "--from", "10", "--to", "30")
    assert (code, report["ok"], report["after"], report["size"]) == (0, True, 8, 30)
    assert report["checkpoints_checked"] == 2  # sizes 16 and 24
    drop_triggers(settings, "ledger_events")
    raw_execute(settings, flip_one_byte(settings, 35))
    assert verify_both(cli_env, "--from", "9", "--to", "32")[0] == 0
    raw_execute(settings, flip_one_byte(settings, 9))
    code, report = verify_both(cli_env, "--from", "10", "--to", "32")
    assert (code, report["first_bad_position"]) == (3, 9)


@pytest.mark.parametrize("position", [None, 2, 17, EVENTS])
def test_verify_reads_page_after_page_and_names_a_change_in_any_page(
    filled: Ledger, settings: Settings, monkeypatch: pytest.MonkeyPatch, position: int | None
) -> None:
    monkeypatch.setattr(ledger_module, "PAGE", 3)
    if position is not None:
        drop_triggers(settings, "ledger_events")
        raw_execute(settings, flip_one_byte(settings, position))
    report = verify(filled)
    assert report.ok is (position is None)
    assert report.size == EVENTS
    assert report.first_bad_position == position


def test_a_held_tree_refuses_events_that_do_not_give_the_signed_root(
    filled: Ledger, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server holds its tree hashed from the events (`Ledger.hold_tree`): an event changed
    under it gives another root than the signed checkpoint's, and no proof is made from it;
    while that checkpoint is the latest, later proofs are refused without hashing again."""
    drop_triggers(settings, "ledger_events")
    raw_execute(settings, flip_one_byte(settings, 7))
    with pytest.raises(LedgerIntegrityError, match=f"up to {EVENTS} do not give the root"):
        filled.hold_tree()

    def not_read(*_: object) -> NoReturn:
        raise AssertionError("the events were read again for a checkpoint already refused")

    monkeypatch.setattr(filled.recorder, "select_tuples", not_read)
    with pytest.raises(LedgerIntegrityError, match="do not give the root"):
        filled.inclusion_proof(3, EVENTS)


def test_a_held_tree_grows_only_to_a_checkpoint_whose_note_signs_its_root(
    filled: Ledger, settings: Settings
) -> None:
    """The root a held tree is checked against is the signed one: a root column rewritten to
    match changed events is refused before any event is hashed."""
    drop_triggers(settings, "ledger_checkpoints")
    forged = "X'" + "ab" * 32 + "'" if not is_postgres(settings) else "'\\x" + "ab" * 32 + "'"
    raw_execute(settings, f"UPDATE ledger_checkpoints SET root = {forged} WHERE size = {EVENTS}")
    with pytest.raises(LedgerIntegrityError, match="stored size or root differs from its note"):
        filled.hold_tree()
