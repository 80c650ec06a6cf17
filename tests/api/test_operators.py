"""Operators' keys and signed actions on SQLite and PostgreSQL: every refusal appends nothing
and names why; offline signing; the signature re-verifiable from an export."""

from __future__ import annotations

import base64
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from adapters.clock import utc_now
from api.http import create_app
from api.services.operators import operator_signer, read_action, sign_action
from api.wiring import Argusic, Settings
from domain.errors import Rejected
from domain.events.operators import AddOperator, ApprovePublication, RevokeOperator
from domain.operators import SignedAction
from ledger.actions import signing_bytes
from ledger.export import export_lines
from ledger.ledger import Ledger
from ledger.note import Signer, Verifier
from tests.conftest import append_editions, argusic
from tests.publishing import action_desk

OWNER = "olga"


class Desk:
    """A ledger with an owner, and a way to act as anyone whose key is here."""

    def __init__(self, ledger: Ledger, home: Path) -> None:
        self.ledger, self.home = ledger, home
        append_editions(ledger, 0, 3)
        self.actions = action_desk(ledger)
        self.owner = self.actions.init_owner(home, OWNER)

    def state(self) -> Any:
        return Argusic(Settings("", self.home, None), self.ledger).methodology.state()

    def act(self, signer: Signer, action: Any) -> Any:
        return self.actions.act(signer, action)

    def sign(self, signer: Signer, action: Any, sequence: int) -> SignedAction:
        """`action` signed now for this ledger."""
        return sign_action(signer, action, utc_now, sequence, self.ledger.origin)

    def submit(self, signed: SignedAction) -> Any:
        return self.actions.submit(signed)

    def refused(self, signed: Any, match: str) -> None:
        size = self.ledger.size()
        with pytest.raises(Rejected, match=match) as refusal:
            self.submit(signed)
        assert refusal.value.rule in {"operators", "section 1"}
        assert self.ledger.size() == size  # nothing appended


@pytest.fixture
def desk(ledger: Ledger, settings: Settings) -> Desk:
    return Desk(ledger, settings.home)


def test_the_first_owner_registers_in_the_ledger_with_a_private_key_file(desk: Desk) -> None:
    key_file = desk.home / "operators" / f"{OWNER}.key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    types = [json.loads(line)["type"] for line in export_lines(desk.ledger)]
    assert types[-2:] == ["OperatorActed", "OperatorRegistered"]  # inside the Merkle tree
    (key,) = desk.state().authority.operators.values()
    assert (key.name, key.role, key.public_key) == (OWNER, "owner", desk.owner.public_key)
    with pytest.raises(Rejected, match="has operators already"):
        desk.actions.init_owner(desk.home, "mallory")


def test_a_forged_signature_is_refused(desk: Desk) -> None:
    signed = desk.sign(operator_signer(desk.home, OWNER), approve(desk), 2)
    forged = msgspec.structs.replace(
        signed, action=ApprovePublication(position=desk.ledger.size() - 1)
    )
    desk.refused(forged, "signature")


def test_an_unknown_key_is_refused(desk: Desk) -> None:
    stranger = Signer.generate(OWNER)  # even under a known name
    desk.refused(desk.sign(stranger, approve(desk), 1), "not registered")


def test_a_revoked_key_is_refused(desk: Desk) -> None:
    bob = Signer.generate("bob")
    owner = operator_signer(desk.home, OWNER)
    desk.act(owner, AddOperator(name="bob", public_key=str(bob.verifier), role="operator"))
    desk.act(bob, approve(desk))
    desk.act(owner, RevokeOperator(name="bob"))
    desk.refused(desk.sign(bob, approve(desk), 2), "revoked")


def test_a_replayed_or_reordered_sequence_is_refused(desk: Desk) -> None:
    owner = operator_signer(desk.home, OWNER)
    signed = desk.sign(owner, approve(desk), 2)
    desk.submit(signed)
    desk.refused(signed, "sequence 2 .* not its next")  # the same action again
    desk.refused(desk.sign(owner, approve(desk), 9), "sequence 9 .* not its next")


def test_an_action_outside_the_role_is_refused(desk: Desk) -> None:
    bob, eve = Signer.generate("bob"), Signer.generate("eve")
    owner = operator_signer(desk.home, OWNER)
    desk.act(owner, AddOperator(name="bob", public_key=str(bob.verifier), role="operator"))
    adding = AddOperator(name="eve", public_key=str(eve.verifier), role="owner")
    desk.refused(desk.sign(bob, adding, 1), "operator.* may not add_operator")


def test_an_approval_past_the_head_or_off_a_checkpoint_is_refused(desk: Desk) -> None:
    owner = operator_signer(desk.home, OWNER)
    head = desk.ledger.size()
    desk.refused(desk.sign(owner, ApprovePublication(position=head + 1), 2), "past the head")
    desk.refused(desk.sign(owner, ApprovePublication(position=1), 2), "no signed checkpoint")
    desk.act(owner, ApprovePublication(position=head))
    desk.refused(desk.sign(owner, ApprovePublication(position=3), 3), "not above the last approval")
    desk.refused(
        desk.sign(owner, ApprovePublication(position=head), 3), "not above the last approval"
    )


def test_signed_on_one_machine_and_submitted_over_http(desk: Desk, settings: Settings) -> None:
    elsewhere = operator_signer(desk.home, OWNER)  # the key file, carried to another machine
    signed = desk.sign(elsewhere, approve(desk), 2)
    with TestClient(app=create_app(Argusic(settings, desk.ledger))) as client:
        answer = client.post("/operator/actions", content=msgspec.json.encode(signed))
        assert answer.status_code == 201, answer.text
        assert set(answer.json()) >= {"position", "action", "operator", "sequence"}
        again = client.post("/operator/actions", content=msgspec.json.encode(signed))
        assert again.status_code == 400
        assert "not its next" in again.json()["detail"]


def test_every_signature_re_verifies_from_an_export(desk: Desk) -> None:
    """What an auditor does with nothing but the export and the standard library."""
    desk.act(operator_signer(desk.home, OWNER), approve(desk))
    acted = [
        json.loads(json.loads(line)["canonical"])["event"]
        for line in export_lines(desk.ledger)
        if json.loads(line)["type"] == "OperatorActed"
    ]
    assert len(acted) == 2
    for event in acted:
        signed = ("action", "ledger", "operator", "key_id", "sequence", "signed_at")
        payload = {k: event[k] for k in signed}
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        verifier = Verifier.parse(desk.owner.public_key)
        assert verifier.verify(text.encode(), base64.b64decode(event["signature"]))


@pytest.mark.parametrize("note", ["plain", "café ✓ — 漢字", 'quotes " and \\ and \t tab'])
def test_the_signed_bytes_are_what_the_standard_library_writes(note: str) -> None:
    owner = Signer.generate("olga")
    action = read_action(
        msgspec.json.encode({"action": "release_hold", "hold": "h-1", "note": note})
    )
    at = datetime(2026, 12, 1, 5, tzinfo=UTC)
    signed = sign_action(owner, action, lambda: at, 7, "argusic.local/ledger/0123456789abcdef")
    payload = {k: v for k, v in msgspec.to_builtins(signed).items() if k != "signature"}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert text.encode() == signing_bytes(signed)


def test_the_cli_signs_offline_and_submits(
    desk: Desk, cli_env: dict[str, str], tmp_path: Path
) -> None:
    action = tmp_path / "approve.json"
    action.write_text(json.dumps({"action": "approve_publication", "position": 3}))
    key = desk.home / "operators" / f"{OWNER}.key"
    signed = argusic(cli_env, "operator", "sign", str(action), "--key", str(key))
    assert signed.returncode == 0, signed.stderr
    document = json.loads(signed.stdout)
    fields = {"action", "ledger", "operator", "key_id", "sequence", "signed_at", "signature"}
    assert set(document) == fields
    assert document["ledger"] == desk.ledger.origin
    (tmp_path / "signed.json").write_text(signed.stdout)
    done = argusic(cli_env, "operator", "submit", str(tmp_path / "signed.json"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["action"] == "approve_publication"
    replay = argusic(cli_env, "operator", "submit", str(tmp_path / "signed.json"), "--json")
    assert (replay.returncode, json.loads(replay.stdout)["ok"]) == (1, False)
    published = argusic(cli_env, "publish", "--as", OWNER, "--json")
    assert set(json.loads(published.stdout)) >= {"position", "action", "operator", "sequence"}


def approve(desk: Desk) -> ApprovePublication:
    return ApprovePublication(position=desk.ledger.size())
