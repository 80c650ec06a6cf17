"""`argusic reproduce` on the real engine (methodology section 18; issue 27, item 3): a finished
run run again three times as it ran, by digest, linked to it, and reported; refused, naming the
digest, once its image is gone from the engine."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest

from adapters.sandbox_images import BASELINE_IMAGE
from api.services.operators import operator_signer
from api.services.reader import ProjectionReader
from api.services.reproduce import reproduce
from api.wiring import orchestrator_config
from domain.errors import Rejected
from domain.events import RunScheduled, SandboxCreated, streams
from domain.events.operators import RequestReproduction
from projections.methodology import MethodologyProjection
from projections.views.reproductions import reproductions_view
from tests.api.test_publication import CYCLE, agent, runs
from tests.api.test_reruns import RUNTIME
from tests.conftest import argusic
from tests.publishing import OWNER, action_desk
from tests.records import EDITIONS, write
from tests.runner_fixtures import Rig


def asked(rig: Rig, home: Path, run_id: str) -> list[str]:
    desk = action_desk(rig.ledger)
    if not desk.reader.latest().authority.operators:
        desk.init_owner(home, OWNER)
    return reproduce(
        rig.ledger,
        desk,
        operator_signer(home, OWNER),
        RequestReproduction(run_id=run_id, requested_by="a maintainer"),
        images=rig.runner.sandboxes,
        store=rig.runner.store,
        config=orchestrator_config(rig.env),
        clock=rig.runner.clock,
    ).runs


def test_a_finished_run_is_reproduced_three_times_as_it_ran(rig: Rig, tmp_path: Path) -> None:
    rig.schedule("installs-and-runs", "r-original")
    rig.work()
    runs = asked(rig, tmp_path / "home", "r-original")
    assert runs == ["r-original~p1", "r-original~p2", "r-original~p3"]
    report = rig.work(concurrency=3)
    assert report.executed == dict.fromkeys(runs, "exited")
    original = rig.recorded("r-original")
    assert original is not None
    for run_id in runs:
        scheduled = rig.state(run_id).scheduled
        assert isinstance(scheduled, RunScheduled)
        assert (scheduled.reproduces, scheduled.image_digest) == (
            "r-original",
            original.image_digest,
        )
        sandbox = next(e for e in rig.events(run_id) if isinstance(e, SandboxCreated))
        assert sandbox.image == original.image_digest  # by digest, never by tag
        assert sandbox.instructions_sha256 == original.instructions_sha256
        again = rig.recorded(run_id)
        assert again is not None
        assert again.reproduces == "r-original"
    state = ProjectionReader(rig.ledger, MethodologyProjection()).latest()
    view = reproductions_view(state, rig.ledger.size(), "r-original")
    [request] = view.reproductions
    assert (request.done, request.same_outcome, request.differences) == (True, True, [])
    assert [r.outcome for r in request.runs] == ["pass_full"] * 3
    [reported] = [
        r.event
        for r in rig.ledger.stream(streams.reproduction("r-original"))
        if type(r.event).__name__ == "ReproductionReported"
    ]
    assert reported.request == request.request  # type: ignore[attr-defined]


def test_with_its_image_gone_a_run_cannot_be_reproduced(rig: Rig, tmp_path: Path) -> None:
    client = rig.runner.sandboxes.client  # type: ignore[attr-defined]
    # its own tag and content: the same test on the other database runs at once
    doomed = f"argusic-test/doomed:{uuid.uuid4().hex[:12]}"
    dockerfile = f"FROM {BASELINE_IMAGE}\nLABEL argusic.test={doomed}\n".encode()
    client.images.build(fileobj=io.BytesIO(dockerfile), tag=doomed, rm=True)
    try:
        rig.schedule("installs-and-runs", "r-doomed", image=doomed)
        rig.work()
    finally:
        client.images.remove(doomed, force=True)
    digest = rig.recorded("r-doomed").image_digest  # type: ignore[union-attr]
    assert digest is not None
    assert not rig.runner.sandboxes.has_image(digest)
    with pytest.raises(Rejected, match=digest):
        asked(rig, tmp_path / "home", "r-doomed")
    assert rig.ledger.stream(streams.reproduction("r-doomed")) == []  # nothing signed or run


def test_the_command_names_the_digest_it_no_longer_has(
    images: dict[str, str], cli_env: dict[str, str], tmp_path: Path
) -> None:
    """`argusic reproduce RUN_ID --as NAME`: refused (exit 1, nothing appended) when the run's
    image is not on the engine, naming the digest."""
    gone = "sha256:" + "0d" * 32
    environment = {"image_digest": gone, "instructions_sha256": "ab" * 32}
    records = [agent(a) | {"runtime": RUNTIME} for a in ("agent-a", "agent-b")] + [CYCLE]
    records += [r | environment for r in runs("open-app", "public", "o")]
    assert argusic(cli_env, "init").returncode == 0
    assert (
        argusic(
            cli_env, "ingest", str(write(tmp_path, "runs.jsonl", EDITIONS + records))
        ).returncode
        == 0
    )
    assert argusic(cli_env, "operator", "init", OWNER).returncode == 0
    size = argusic(cli_env, "ledger", "checkpoint", "--json").stdout
    refused = argusic(cli_env, "reproduce", "o-agent-a-0", "--as", OWNER, "--json")
    assert refused.returncode == 1, refused.stderr
    assert gone in json.loads(refused.stdout)["error"]
    assert argusic(cli_env, "ledger", "checkpoint", "--json").stdout == size
