"""Authority, not only integrity (ARCHITECTURE.md, "Authority"), on SQLite and PostgreSQL: a
decision appended through the ledger's own `append` by a host that can write the database (an
ingest or runner host, which also holds the ledger's signing key) changes no public answer, and
`ledger verify` names it; an action signed for another ledger, signed long ago or in the future,
or by a revoked key counts nowhere; the first owner is made only by `operator init`; actions
are ordered by the ledger, so approvals never go back."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from eventsourcing.persistence import OperationalError
from litestar.testing import TestClient

from api.http import create_app
from api.services.audit import write_bundle
from api.services.operators import operator_signer, sign_action
from api.wiring import Argusic, Settings, open_ledger
from domain.errors import Rejected
from domain.events import (
    CycleClosed,
    DisputeOpened,
    DisputeResolved,
    DomainEvent,
    OperatorActed,
    OperatorRegistered,
    OperatorRevoked,
    ProjectReviewCleared,
    ProjectReviewed,
    PublicationApproved,
    RerunRequested,
    RunVoided,
    StreamHeadsCommitted,
)
from domain.events.operators import (
    AddOperator,
    ApprovePublication,
    CloseCycle,
    OperatorAction,
    RevokeOperator,
)
from domain.operators import SignedAction
from ledger.actions import acted, sign
from ledger.ledger import Ledger
from ledger.note import Signer
from ledger.offline_bundle import BundleFailed, check_bundle
from ledger.store import HeadMoved
from ledger.verify import verify
from tests.api.test_publication import CYCLE, ROSTER, agent, project, runs
from tests.api.world import OWNER, World
from tests.conftest import argusic
from tests.publishing import action_desk
from tests.records import run

RUN = "o-agent-a-0"
STAGING = "argusic.local/ledger/staging00000000"


@pytest.fixture
def world(world: World) -> World:
    """A cycle with a public project, a secret one and one every agent failed (under review),
    a genuine dispute, all approved for the public."""
    broken = [
        run(f"b-{a}-{i}", "broken", a, "100", status="timeout")
        | {"agent": {"id": a}, "project": project("broken")}
        for a in ROSTER
        for i in range(3)
    ]
    cycle = CYCLE | {"projects": [*CYCLE["projects"], project("broken")]}  # type: ignore[list-item]
    world.ingest([agent(a) for a in ROSTER] + [cycle])
    world.ingest(runs("open-app", "public", "o") + runs("vault", "secret", "s") + broken)
    world.act({"action": "dispute_open", "run_id": RUN, "claimant": "a lab", "claim": "wrong"})
    approve(world)
    return world


def approve(world: World) -> int:
    position = world.ledger.size()
    world.act({"action": "approve_publication", "position": position})
    return position


def appended(ledger: Ledger, events: list[DomainEvent]) -> int:
    """Events appended as any writer of the database can: the ledger's own `append`. Their
    first position."""
    first = ledger.size() + 1
    ledger.append(ledger.next_versions(events))
    return first


def public_answers(world: World, settings: Settings) -> dict[str, Any]:
    """Every public document of the scenario, without the position it is as of."""
    public = Argusic(settings, world.ledger).public
    documents = {
        "leaderboard": public.leaderboard("2026-09"),
        "projects": public.projects(),
        "agents": public.agents("2026-09"),
        "sources": public.sources(),
        "disputes": public.disputes(),
        **{f"project {p}": public.project(p) for p in ("open-app", "broken")},
        **{f"run {r}": public.run(r) for r in (RUN, "o-agent-b-1", "b-agent-a-0")},
    }
    unpositioned = {}
    for name, document in documents.items():
        fields = msgspec.to_builtins(document)
        unpositioned[name] = {k: v for k, v in fields.items() if k not in ("as_of", "approved")}
    return unpositioned


def owner(world: World) -> Signer:
    return operator_signer(world.folder / "home", OWNER)


def signed(
    world: World,
    signer: Signer,
    action: OperatorAction,
    *,
    sequence: int | None = None,
    ledger: str | None = None,
    at: datetime | None = None,
) -> OperatorActed:
    """`action` signed by `signer` (by default: its next sequence, for this ledger, now)."""
    state = world.reads().latest()
    number = sequence or state.authority.next_sequence(signer.verifier.key_id.hex())
    return acted(
        sign(
            signer,
            action,
            number,
            at or world.ledger.clock(),
            ledger or world.ledger.origin,
        )
    )


def mallory_owns(world: World) -> list[DomainEvent]:
    """A key registered as an owner by nobody's signed action, which then revokes the owner."""
    mallory = Signer.generate("mallory")
    key_id = mallory.verifier.key_id.hex()
    registered = OperatorRegistered(
        name="mallory", key_id=key_id, public_key=str(mallory.verifier), role="owner"
    )
    revoke = acted(
        sign(mallory, RevokeOperator(name=OWNER), 1, world.ledger.clock(), world.ledger.origin), 1
    )
    rita = owner(world).verifier.key_id.hex()
    return [registered, revoke, OperatorRevoked(name=OWNER, key_id=rita)]


def voided(run_id: str, reason: str) -> list[DomainEvent]:
    return [RunVoided(run_id=run_id, reason=reason), RerunRequested(run_id=run_id, reason=reason)]


Forgery = Callable[[World], list[DomainEvent]]
FORGERIES: dict[str, Forgery] = {
    "an owner registered": mallory_owns,
    "the owner revoked": lambda w: [
        OperatorRevoked(name=OWNER, key_id=owner(w).verifier.key_id.hex())
    ],
    "a cycle closed": lambda _: [CycleClosed(cycle="2026-09", operator=OWNER)],
    "a review": lambda _: [
        ProjectReviewed(
            project_id="broken", cycle="2026-09", finding="environment", reviewer=OWNER, note=""
        ),
        *[e for a in ROSTER for i in range(3) for e in voided(f"b-{a}-{i}", "environment fault")],
    ],
    "a review of before signed actions": lambda _: [
        ProjectReviewCleared(project_id="broken", reviewer=OWNER, note="")
    ],
    "a run voided": lambda _: [RunVoided(run_id=RUN, reason="environment fault")],
    "a rerun requested": lambda _: [RerunRequested(run_id=RUN, reason="environment fault")],
    "a dispute opened": lambda _: [
        DisputeOpened(dispute=f"{RUN}.2", run_id=RUN, claimant="x", claim="y", operator=OWNER)
    ],
    "a dispute resolved": lambda _: [
        DisputeResolved(dispute=f"{RUN}.1", run_id=RUN, outcome="rerun", note="n", operator=OWNER),
        *voided(RUN, f"corrected after dispute {RUN}.1: n"),
    ],
    "an action signed for another ledger": lambda w: [
        signed(w, owner(w), CloseCycle(cycle="2026-09"), ledger=STAGING),
        CycleClosed(cycle="2026-09", operator=OWNER),
    ],
    "an action signed in 2099": lambda w: [
        signed(w, owner(w), CloseCycle(cycle="2026-09"), at=datetime(2099, 1, 1, tzinfo=UTC)),
        CycleClosed(cycle="2026-09", operator=OWNER),
    ],
    "an action signed two days before": lambda w: [
        signed(w, owner(w), CloseCycle(cycle="2026-09"), at=w.ledger.clock() - timedelta(days=2)),
        CycleClosed(cycle="2026-09", operator=OWNER),
    ],
    "a replayed action": lambda w: [
        signed(w, owner(w), CloseCycle(cycle="2026-09"), sequence=1),
        CycleClosed(cycle="2026-09", operator=OWNER),
    ],
    "an action with another's signature": lambda w: [
        msgspec.structs.replace(
            signed(w, owner(w), CloseCycle(cycle="2026-09")),
            signature=signed(w, owner(w), ApprovePublication(position=1)).signature,
        ),
        CycleClosed(cycle="2026-09", operator=OWNER),
    ],
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_decision_appended_without_authority_changes_no_public_answer(
    forgery: str, world: World, settings: Settings, tmp_path: Path
) -> None:
    """And fails both verifiers: `ledger verify`, and the offline verifier of a bundle that
    holds it (every bundle holds each event of its figure's streams)."""
    before = public_answers(world, settings)
    first = appended(world.ledger, FORGERIES[forgery](world))
    approve(world)  # a genuine approval of everything, the forgery included
    assert public_answers(world, settings) == before
    assert OWNER in {k.name for k in world.reads().latest().authority.operators.values()}
    report = verify(world.ledger)
    assert not report.ok
    assert report.first_bad_position == first, report.problems
    assert "authority" in report.problems[0].reason
    folder = tmp_path / "bundle"
    write_bundle("leaderboard:2026-09", world.ledger, world.reads().latest(), folder)
    with pytest.raises(BundleFailed, match=f"^event {first}: .*authority"):
        check_bundle(folder, str(world.ledger.recorder.sealer.verifier))


def test_a_forged_commitment_to_the_streams_heads_counts_nowhere(world: World) -> None:
    """Appended on its own, with an approval's position: no approval commits with it."""
    approved = approve(world)
    forged = StreamHeadsCommitted(position=approved, size=1, streams=1, root="0" * 64)
    first = appended(world.ledger, [forged])
    report = verify(world.ledger)
    assert [p.position for p in report.problems] == [first, first]
    assert "StreamHeadsCommitted without authority" in report.problems[0].reason


def test_a_forged_approval_moves_nothing_public(world: World, settings: Settings) -> None:
    published = Argusic(settings, world.ledger).public.published_position()
    world.ingest(
        [
            run("late", "open-app", "agent-a", "92")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    first = appended(
        world.ledger, [PublicationApproved(position=world.ledger.size(), operator=OWNER)]
    )
    assert Argusic(settings, world.ledger).public.published_position() == published
    assert verify(world.ledger).first_bad_position == first


def test_a_server_knows_what_is_approved_at_the_head_from_the_authority_events_alone(
    world: World, settings: Settings
) -> None:
    """A public reader keeps what is approved at the head by folding on only the signed actions
    and authority facts since its state (`HeadApprovals`), and its state goes no further than
    the approved position: a forged approval, a fact after a genuine action and a revoked key's
    action count there as in the whole fold."""
    public = Argusic(settings, world.ledger).public
    published = public.published_position()
    bob = Signer.generate("bob")
    added = {"action": "add_operator", "name": "bob", "role": "owner"}
    world.act(added | {"public_key": str(bob.verifier)})
    world.act({"action": "revoke_operator", "name": "bob"})
    size = world.ledger.size()
    late = signed(world, bob, ApprovePublication(position=size))
    appended(world.ledger, [late, PublicationApproved(position=size, operator="bob")])
    appended(world.ledger, [PublicationApproved(position=world.ledger.size(), operator=OWNER)])
    assert public.published_position() == published
    newer = approve(world)
    appended(world.ledger, [PublicationApproved(position=newer, operator=OWNER)])
    late_run = run("late", "open-app", "agent-a", "92")
    world.ingest([late_run | {"agent": {"id": "agent-a"}, "project": project("open-app")}])
    assert public.published_position() == newer
    assert public.leaderboard(CYCLE["id"]).as_of == newer  # type: ignore[arg-type]
    assert public.reader.kept() == [], "the state read is the latest, not an earlier one kept"
    whole = Argusic(settings, world.ledger).public.state().authority.approvals
    assert public.approvals.positions() == [approval.position for approval in whole]


def test_a_failed_read_of_the_authority_events_loses_nothing_folded(
    world: World, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database failing under the read of the authority events since the last look leaves
    the approvals folded so far as they were: the next look folds on from them, not afresh
    from the public reader's state (which it would then fold on to the head)."""
    public = Argusic(settings, world.ledger).public
    public.published_position()
    started = 0
    start = public.approvals._start

    def counted_start() -> Any:
        nonlocal started
        started += 1
        return start()

    monkeypatch.setattr(public.approvals, "_start", counted_start)
    newer = approve(world)

    def away(*_: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(world.ledger, "events_of", away)
    with pytest.raises(OperationalError):
        public.published_position()
    monkeypatch.undo()
    monkeypatch.setattr(public.approvals, "_start", counted_start)
    assert (public.published_position(), started) == (newer, 0)


def test_a_read_of_the_authority_events_hung_on_the_database_holds_up_no_other_look(
    world: World, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look whose read of the authority events hangs (the database slow to answer on its
    connection) holds no lock while it waits: another look, on another connection, reads and
    folds the same approval and answers; the first then answers the same."""
    public = Argusic(settings, world.ledger).public
    public.published_position()
    newer = approve(world)
    hung, release = threading.Event(), threading.Event()
    events_of = world.ledger.events_of

    def hanging(*args: Any) -> Any:
        if not hung.is_set():
            hung.set()
            release.wait(30)
        return events_of(*args)

    monkeypatch.setattr(world.ledger, "events_of", hanging)
    with ThreadPoolExecutor(2) as looks:
        first = looks.submit(public.approvals.positions)
        assert hung.wait(30)
        try:
            assert looks.submit(public.approvals.positions).result(timeout=10)[-1] == newer
        finally:
            release.set()
        assert first.result()[-1] == newer


def test_a_fact_appended_after_a_genuine_action_is_not_its_decision(world: World) -> None:
    """A fact its action would decide, but appended in a batch of its own afterwards."""
    approved = approve(world)
    first = appended(world.ledger, [PublicationApproved(position=approved, operator=OWNER)])
    report = verify(world.ledger)
    assert report.first_bad_position == first
    assert "PublicationApproved without authority" in report.problems[0].reason


def test_the_genuine_ledger_verifies_and_every_action_is_checked(world: World) -> None:
    report = verify(world.ledger)
    assert report.ok, report.problems
    assert report.actions_checked == 3  # the owner's registration, the dispute, the approval


def test_an_action_by_a_revoked_key_counts_nowhere(world: World, settings: Settings) -> None:
    bob = Signer.generate("bob")
    added = {"action": "add_operator", "name": "bob", "role": "operator"}
    world.act(added | {"public_key": str(bob.verifier)})
    world.act({"action": "revoke_operator", "name": "bob"})
    before = public_answers(world, settings)
    late = signed(world, bob, CloseCycle(cycle="2026-09"))
    with pytest.raises(Rejected, match="revoked"):
        action_desk(world.ledger).submit(signed_action(world, bob, CloseCycle(cycle="2026-09")))
    first = appended(world.ledger, [late, CycleClosed(cycle="2026-09", operator="bob")])
    approve(world)
    assert public_answers(world, settings) == before
    assert verify(world.ledger).first_bad_position == first


# --- submission: bound to one ledger, in time, the first owner only by `operator init` -------


def signed_action(world: World, signer: Signer, action: OperatorAction, **how: Any) -> SignedAction:
    """`signed`, as `operator sign` prints it."""
    fields = msgspec.structs.asdict(signed(world, signer, action, **how))
    return SignedAction(**{k: v for k, v in fields.items() if k != "decides"})


@pytest.mark.parametrize(
    ("how", "refusal"),
    [
        ({"ledger": STAGING}, "signed for ledger 'argusic.local/ledger/staging"),
        ({"at": datetime(2099, 1, 1, tzinfo=UTC)}, "signed at 2099"),
        ({"at": datetime(2026, 1, 1, tzinfo=UTC)}, "signed at 2026-01-01"),
    ],
)
def test_an_action_for_another_ledger_or_out_of_time_is_refused(
    how: dict[str, Any], refusal: str, world: World, settings: Settings
) -> None:
    action = signed_action(world, owner(world), CloseCycle(cycle="2026-09"), **how)
    size = world.ledger.size()
    with pytest.raises(Rejected, match=refusal):
        action_desk(world.ledger).submit(action)
    with TestClient(app=create_app(Argusic(settings, world.ledger))) as client:
        answer = client.post("/operator/actions", content=msgspec.json.encode(action))
    assert answer.status_code == 400
    assert refusal in answer.json()["detail"]
    assert world.ledger.size() == size  # nothing appended


def test_http_never_makes_the_first_owner(ledger: Ledger, settings: Settings) -> None:
    mallory = Signer.generate("mallory")
    action = AddOperator(name="mallory", public_key=str(mallory.verifier), role="owner")
    first = sign_action(mallory, action, ledger.clock, 1, ledger.origin)
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        answer = client.post("/operator/actions", content=msgspec.json.encode(first))
    assert answer.status_code == 400
    assert "only by `argusic operator init`" in answer.json()["detail"]
    assert ledger.size() == 0
    action_desk(ledger).init_owner(settings.home, "olga")  # the real owner, on its machine
    assert [k.name for k in action_desk(ledger).reader.latest().authority.operators.values()] == [
        "olga"
    ]


def test_the_cli_signs_for_another_ledger_only_when_told_and_that_ledger_refuses_it(
    world: World, cli_env: dict[str, str], tmp_path: Path
) -> None:
    action = tmp_path / "close.json"
    action.write_text(json.dumps({"action": "close_cycle", "cycle": "2026-09"}))
    key = str(world.folder / "home" / "operators" / f"{OWNER}.key")
    cli_env = cli_env | {"ARGUSIC_HOME": str(world.folder / "home")}
    away = argusic(cli_env, "operator", "sign", str(action), "--key", key, "--ledger", STAGING)
    assert away.returncode == 2  # signing away from the ledger needs the sequence too
    away = argusic(
        cli_env,
        "operator",
        "sign",
        str(action),
        "--key",
        key,
        "--ledger",
        STAGING,
        "--sequence",
        str(world.reads().latest().authority.next_sequence(owner(world).verifier.key_id.hex())),
    )
    assert away.returncode == 0, away.stderr
    assert json.loads(away.stdout)["ledger"] == STAGING
    (tmp_path / "signed.json").write_text(away.stdout)
    refused = argusic(cli_env, "operator", "submit", str(tmp_path / "signed.json"), "--json")
    assert refused.returncode == 1
    assert "not for this one" in json.loads(refused.stdout)["error"]
    key_line = argusic(cli_env, "ledger", "public-key")
    assert key_line.stdout.strip() == str(world.ledger.recorder.sealer.verifier)
    assert key_line.stdout.startswith(world.ledger.origin + "+")


# --- ordering: actions judged against everything before them --------------------------------


def test_an_action_judged_before_the_ledger_moved_is_judged_again(world: World) -> None:
    """Two approvals at once: the lower one, judged before the higher one landed, cannot land
    after it; it is judged again and refused (the public view never goes back)."""
    desk = action_desk(world.ledger)
    low = world.ledger.size()
    stale_state, stale_head = desk.reader.latest(), world.ledger.size()
    stale = signed_action(world, owner(world), ApprovePublication(position=low))
    world.ingest(
        [
            run("late", "open-app", "agent-a", "92")
            | {"agent": {"id": "agent-a"}, "project": project("open-app")}
        ]
    )
    world.publish()
    with pytest.raises(HeadMoved):
        desk._append_at(stale, stale_state, stale_head, first=False)
    with pytest.raises(Rejected, match="not above the last approval"):
        desk.submit(signed_action(world, owner(world), ApprovePublication(position=low)))


def test_an_action_judged_before_its_keys_revocation_landed_is_refused(world: World) -> None:
    """A revocation and an action by the revoked key at once: the action, judged before the
    revocation was appended, is judged again after it and refused."""
    bob = Signer.generate("bob")
    world.act(
        {
            "action": "add_operator",
            "name": "bob",
            "public_key": str(bob.verifier),
            "role": "operator",
        }
    )
    desk = action_desk(world.ledger)
    stale_state, stale_head = desk.reader.latest(), world.ledger.size()
    bobs = signed_action(world, bob, CloseCycle(cycle="2026-09"))
    world.act({"action": "revoke_operator", "name": "bob"})
    with pytest.raises(HeadMoved):
        desk._append_at(bobs, stale_state, stale_head, first=False)
    with pytest.raises(Rejected, match="revoked"):
        desk.submit(bobs)
    assert "2026-09" not in world.reads().latest().closed


def test_approvals_at_once_never_go_back(world: World, settings: Settings) -> None:
    """Two operators publishing the head they see, at the same moment, from two processes (two
    ledgers open on one database): every approval recorded is above the one before it."""
    bob = Signer.generate("bob")
    world.act(
        {"action": "add_operator", "name": "bob", "public_key": str(bob.verifier), "role": "owner"}
    )
    refused: list[str] = []

    def publish(signer: Signer) -> None:
        ledger = open_ledger(settings)
        desk = action_desk(ledger)
        try:
            for _ in range(12):
                try:
                    desk.act(signer, ApprovePublication(position=ledger.size()))
                except Rejected as e:
                    refused.append(e.reason)
        finally:
            ledger.close()

    threads = [threading.Thread(target=publish, args=(s,)) for s in (owner(world), bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    approvals = [a.position for a in world.reads().latest().authority.approvals]
    assert len(approvals) + len(refused) == 1 + 24
    assert approvals == sorted(set(approvals))  # strictly rising: the public never goes back
    assert all("not above the last approval" in reason for reason in refused)
    assert verify(world.ledger).ok


def test_ledger_verify_names_the_first_decision_without_authority(
    world: World, cli_env: dict[str, str]
) -> None:
    first = appended(world.ledger, [CycleClosed(cycle="2026-09", operator=OWNER)])
    appended(world.ledger, mallory_owns(world))
    done = argusic(cli_env, "ledger", "verify", "--json")
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert (report["ok"], report["first_bad_position"]) == (False, first)
    assert "CycleClosed without authority" in report["problems"][0]["reason"]
