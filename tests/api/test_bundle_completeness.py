"""Bundles that prove they left nothing out (ARCHITECTURE.md, "Authority"), on SQLite and
PostgreSQL: an approval commits to every stream's head, so the offline verifier refuses a bundle
with an event of its figure's streams left out (a run's dispute resolution, void and rerun
request dropped, as the probe of 2026-12-03 did), a stream left out, or an event twice; it checks
against a key the auditor gives, refuses another ledger's bundle, and says so when it is told to
trust the bundle's own key; `ledger verify` names a commitment that is not the ledger's heads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import api.services.operators
from api.services.audit import write_bundle
from api.wiring import Settings, init
from domain.errors import InvalidInput
from domain.events import PublicationApproved, StreamHeadsCommitted
from domain.events.operators import ApprovePublication
from ledger.actions import acted, sign
from ledger.ledger import Ledger
from ledger.offline_bundle import KEY_NEEDED, OWN_KEY
from ledger.verify import verify
from tests.api.test_audit_bundle import offline_check as checked
from tests.api.test_publication import CYCLE, ROSTER, agent, runs
from tests.api.world import OWNER, World

RUN = "o-agent-a-0"
DISPUTE = f"{RUN}.1"


@pytest.fixture
def disputed(world: World) -> World:
    """A run disputed and resolved `rerun` (voided, asked for again), all approved."""
    world.ingest([agent(a) for a in ROSTER] + [CYCLE])
    world.ingest(runs("open-app", "public", "o"))
    world.act({"action": "dispute_open", "run_id": RUN, "claimant": "a lab", "claim": "wrong"})
    world.act(
        {"action": "dispute_resolve", "dispute": DISPUTE, "outcome": "rerun", "note": "mirror"}
    )
    world.act({"action": "approve_publication", "position": world.ledger.size()})
    return world


def key_of(ledger: Ledger) -> str:
    return str(ledger.recorder.sealer.verifier)


def bundled(world: World, folder: Path, figure: str = f"run:{RUN}") -> Path:
    write_bundle(figure, world.ledger, world.reads().latest(), folder)
    return folder


def entries(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()]


def rewritten(
    folder: Path, kept: list[dict[str, Any]], value: dict[str, Any] | None = None
) -> Path:
    """The bundle with only `kept` events, its count (and figure) made to agree: what someone
    hiding events would hand over."""
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in kept))
    figure = json.loads((folder / "figure.json").read_text())
    figure["events"] = len(kept)
    if value is not None:
        figure["value"] = value
    (folder / "figure.json").write_text(json.dumps(figure))
    return folder


def test_the_bundle_of_a_voided_run_verifies_and_says_void(disputed: World, tmp_path: Path) -> None:
    code, result = checked(bundled(disputed, tmp_path / "b"), "--key", key_of(disputed.ledger))
    assert code == 0, result
    assert result["value"]["valid"] is False
    assert result["value"]["invalid_reason"] == f"corrected after dispute {DISPUTE}: mirror"
    assert "warning" not in result


LEFT_OUT = {
    "the dispute's resolution": {"DisputeResolved"},
    "the void": {"RunVoided"},
    "the rerun request": {"RerunRequested"},
    "all three": {"DisputeResolved", "RunVoided", "RerunRequested"},
}


@pytest.mark.parametrize("left_out", LEFT_OUT)
def test_a_bundle_with_an_event_left_out_is_refused(
    left_out: str, disputed: World, tmp_path: Path
) -> None:
    folder = bundled(disputed, tmp_path / "b")
    kept = [e for e in entries(folder) if e["type"] not in LEFT_OUT[left_out]]
    void = json.loads((folder / "figure.json").read_text())["value"]
    valid = void | {"valid": True, "invalid_reason": None}
    code, result = checked(rewritten(folder, kept, valid), "--key", key_of(disputed.ledger))
    assert code == 3, result
    assert "left out" in result["error"], result


def test_a_stream_left_out_of_the_heads_proof_is_refused(disputed: World, tmp_path: Path) -> None:
    """The rerun request's whole stream, dropped from the events and from the proof of the
    streams under `rerun:`: the proof no longer leads to the root the approval committed to."""
    folder = bundled(disputed, tmp_path / "b")
    stream = f"rerun:{RUN}"
    proofs = json.loads((folder / "heads.json").read_text())
    proofs["rerun:"]["heads"] = [h for h in proofs["rerun:"]["heads"] if h[0] != stream]
    (folder / "heads.json").write_text(json.dumps(proofs))
    rewritten(folder, [e for e in entries(folder) if e["stream"] != stream])
    code, result = checked(folder, "--key", key_of(disputed.ledger))
    assert code == 3, result
    assert result["error"].startswith("heads.json: streams 'rerun:': the range proof is too")


def test_an_event_twice_is_refused(disputed: World, tmp_path: Path) -> None:
    folder = bundled(disputed, tmp_path / "b")
    events = entries(folder)
    twice = next(i for i, e in enumerate(events) if e["type"] == "RunVoided")
    rewritten(folder, [*events[: twice + 1], events[twice], *events[twice + 1 :]])
    code, result = checked(folder, "--key", key_of(disputed.ledger))
    assert (code, result["error"]) == (
        3,
        f"event {events[twice]['position']}: it is in the bundle twice",
    )


def test_the_key_must_come_from_somewhere_else_than_the_bundle(
    disputed: World, tmp_path: Path
) -> None:
    folder = bundled(disputed, tmp_path / "b")
    assert checked(folder) == (2, {"ok": False, "error": KEY_NEEDED})
    pinned = tmp_path / "ledger.pub"
    pinned.write_text(key_of(disputed.ledger) + "\n")
    code, result = checked(folder, "--key-file", str(pinned))
    assert (code, result.get("warning")) == (0, None), result
    code, result = checked(folder, "--bundle-key")
    assert (code, result["warning"]) == (0, OWN_KEY)


def test_a_bundle_of_another_ledger_is_refused(disputed: World, tmp_path: Path) -> None:
    """Checked against the production ledger's key: a staging ledger's bundle fails, whether
    it carries its own key or claims production's."""
    production = key_of(disputed.ledger)
    folder = tmp_path / "staging"
    elsewhere = Settings(
        database_url=f"sqlite:///{tmp_path}/staging.db", home=folder / "home", log_format="json"
    )
    staging = World(init(elsewhere)[0], folder)
    staging.ingest([agent(a) for a in ROSTER] + [CYCLE])
    staging.ingest(runs("open-app", "public", "o"))
    staging.act({"action": "approve_publication", "position": staging.ledger.size()})
    folder = bundled(staging, tmp_path / "b")
    code, result = checked(folder, "--key", production)
    assert code == 3
    assert result["error"] == (
        f"checkpoint: the bundle is of the ledger with key {key_of(staging.ledger)}, "
        f"not of {production}"
    )
    document = json.loads((folder / "checkpoint.json").read_text())
    (folder / "checkpoint.json").write_text(json.dumps(document | {"public_key": production}))
    code, result = checked(folder, "--key", production)
    assert code == 3
    assert result["error"].startswith("checkpoint: "), result


def test_an_approval_without_a_commitment_has_no_bundle(disputed: World, tmp_path: Path) -> None:
    """An approval signed and recorded with its publication alone (as before approvals
    committed to the streams' heads) still publishes; its figures have no bundle."""
    ledger = disputed.ledger
    signer = api.services.operators.operator_signer(disputed.folder / "home", OWNER)
    state = disputed.reads().latest()
    position = ledger.size()
    action = sign(
        signer,
        ApprovePublication(position=position),
        state.authority.next_sequence(signer.verifier.key_id.hex()),
        ledger.clock(),
        ledger.origin,
    )
    events = [acted(action, 1), PublicationApproved(position=position, operator=OWNER)]
    ledger.append(ledger.next_versions(events))
    state = disputed.reads().latest()
    assert state.published().position == position  # type: ignore[union-attr]
    with pytest.raises(InvalidInput, match=f"the approval of {position} commits to no stream"):
        write_bundle(f"run:{RUN}", ledger, state, tmp_path / "b")


def test_ledger_verify_names_a_commitment_that_is_not_the_ledgers_heads(
    disputed: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A desk that commits to other heads than the ledger's (signed and authorized, so only
    the recomputation catches it)."""
    genuine = api.services.operators.committed_heads

    def skewed(ledger: Ledger, position: int, size: int) -> StreamHeadsCommitted:
        return msgspec.structs.replace(genuine(ledger, position, size - 1), size=size)

    monkeypatch.setattr(api.services.operators, "committed_heads", skewed)
    report = disputed.act({"action": "approve_publication", "position": disputed.ledger.size()})
    committed_at = report.position + 2
    result = verify(disputed.ledger)
    assert [(p.position, p.reason) for p in result.problems] == [
        (
            committed_at,
            f"event {committed_at}: the streams' heads as of {report.position - 1} are not the "
            "ones it commits to",
        )
    ]


def test_every_approval_commits_to_the_heads_it_was_judged_at(disputed: World) -> None:
    ledger = disputed.ledger
    head = ledger.size()
    report = disputed.act({"action": "approve_publication", "position": head})
    batch = [e.event for e in ledger.events(head, ledger.size())]
    commitment = batch[-1]
    assert isinstance(commitment, StreamHeadsCommitted)
    assert (commitment.position, commitment.size) == (head, report.position - 1)
    assert commitment.streams == len(ledger.stream_heads(head))
    assert verify(ledger).ok
