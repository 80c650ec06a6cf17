"""SI-IQ sections 8 and 11 end to end over real HTTP: a benchmark revision frozen and moved in one
step with a recalibration (a minor version); the operator told after three days and a signed
approve_revision; the monthly recalibration; the publication check halting and resuming; every
published document reproduced byte for byte by replaying the ledger as of its position."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import msgspec

from api.services.queries import SiiqQueries
from api.services.siiq_publication import publish_check
from domain.events import (
    BenchmarkFrozen,
    BenchmarkUnfrozen,
    CalibrationAccepted,
    OperatorNotified,
    PublicationHalted,
    RevisionAttempted,
    RevisionObserved,
    SiiqPublished,
)
from domain.events.operators import ApproveRevision, ReleaseHold
from ledger.ledger import Ledger
from projections.siiq import PUBLICATION_HOLD
from tests.api.siiq.conftest import World

BENCH = "hle"


def revise(world: World, count: int = 20, by: float = 0.03) -> list[str]:
    models = sorted(m for m, b in world.export.scores if b == BENCH)[:count]
    for model in models:
        world.export.scores[model, BENCH] = round(world.export.scores[model, BENCH] + by, 4)
    world.serve_export()
    return models


def nudge(world: World) -> None:
    key = ("Model F", "math_level_5")
    world.export.scores[key] = round(world.export.scores[key] + 0.001, 4)
    world.serve_export()


def assert_replayed(ledger: Ledger) -> None:
    """Every publication's documents, recomputed by a fresh fold as of its position, and as
    the public endpoints' queries answer as of it, are the bytes it recorded."""
    publications = [r for r in ledger.events() if isinstance(r.event, SiiqPublished)]
    assert publications
    for recorded in publications:
        fresh = SiiqQueries(ledger)
        documents = fresh.documents(recorded.position - 1)
        event = recorded.event
        assert hashlib.sha256(documents["index"]).hexdigest() == event.index_sha256
        assert hashlib.sha256(documents["evidence"]).hexdigest() == event.evidence_sha256
        assert hashlib.sha256(documents["history"]).hexdigest() == event.history_sha256
        assert hashlib.sha256(documents["status"]).hexdigest() == event.status_sha256
        served = msgspec.json.encode(fresh.index(recorded.position))
        assert hashlib.sha256(served).hexdigest() == event.index_sha256


def test_a_revision_freezes_then_moves_in_one_step_with_a_recalibration(world: World) -> None:
    world.hour()
    before = world.scores()
    models = revise(world)
    report = world.hour()
    assert report.frozen == [BENCH]
    [frozen] = world.events(BenchmarkFrozen)
    assert frozen.kind == "revision"
    assert frozen.reason == "20 of 50 results moved by more than half a point"
    assert world.status()["frozen"] == [BENCH]
    assert world.scores() == before  # published values kept as they were
    # A later re-score of another result joins the same revision.
    late = sorted(m for m, b in world.export.scores if b == BENCH)[-1]
    world.export.scores[late, BENCH] = round(world.export.scores[late, BENCH] + 0.02, 4)
    world.serve_export()
    world.hour(2)
    observed = world.events(RevisionObserved)
    assert late in {k.split("|")[1] for k in observed[-1].values}
    assert world.scores() == before
    # A model the source adds meanwhile waits for the transition, then is checked as usual.
    world.export.scores["Model Q", BENCH] = 0.5
    # A later distinct snapshot with the snapshot six hours back agreeing: one step.
    nudge(world)
    report = world.hour(6)
    assert [u.benchmark for u in world.events(BenchmarkUnfrozen)] == [BENCH]
    recalibrations = world.events(CalibrationAccepted)
    assert [c.calibration.version for c in recalibrations] == ["1.0.0", "1.1.0"]
    index = world.index()
    assert index["version"] == "1.1.0"
    assert index["calibration"]["version"] == "1.1.0"
    after = world.scores()
    assert all(after[m, BENCH] == world.export.scores[m, BENCH] for m in [*models, late])
    assert world.status()["frozen"] == []
    assert ("Model Q", BENCH) not in after
    world.hour()
    assert world.scores()["Model Q", BENCH] == 0.5
    assert_replayed(world.ledger)


def test_a_revision_not_ready_after_three_days_is_told_and_approved_by_a_person(
    world: World,
) -> None:
    world.hour()
    revise(world)
    world.hour()
    world.hour(71)
    assert world.events(OperatorNotified) == []
    world.hour(2)
    [notice] = world.events(OperatorNotified)
    assert notice.subject == BENCH
    assert world.status()["freezes"][0]["notified"] is True
    [frozen] = world.events(BenchmarkFrozen)
    world.sign(ApproveRevision(benchmark=BENCH, snapshot=frozen.snapshot))
    world.hour()
    assert [u.benchmark for u in world.events(BenchmarkUnfrozen)] == [BENCH]
    assert world.index()["version"] == "1.1.0"


def test_the_monthly_recalibration_runs_at_six_on_the_first(world: World) -> None:
    world.now = datetime(2026, 11, 30, 20, tzinfo=UTC)
    world.hour()
    world.now = datetime(2026, 12, 1, 4, tzinfo=UTC)
    nudge(world)  # new data during the month: the recalibration's parameters differ
    world.hour(1)
    assert len(world.events(CalibrationAccepted)) == 1
    world.hour(1)
    recalibrations = world.events(CalibrationAccepted)
    assert [c.calibration.version for c in recalibrations] == ["1.0.0", "1.1.0"]
    assert world.index()["version"] == "1.1.0"
    world.hour(1)
    assert len(world.events(CalibrationAccepted)) == 2


def test_publication_halts_when_a_ranked_model_vanishes_and_resumes_after_six_runs(
    world: World,
) -> None:
    world.hour()
    gone = "Model F"
    for key in [k for k in world.export.scores if k[0] == gone]:
        del world.export.scores[key]
    world.serve_export()
    world.hour()
    world.hour(6)  # the deletions are removed: the ranked model would vanish
    [halt] = world.events(PublicationHalted)
    assert halt.reason == f"ranked models would vanish: {gone}"
    status = world.status()
    assert status["publication"]["halted"] is True
    assert status["halted"] is True
    assert "publication" in [n["subject"] for n in status["notifications"]]
    assert gone in {m["slug"] for m in world.index()["models"]}  # the previous stays online
    assert not publish_check(world.ledger).publishable
    for _ in range(4):
        world.hour()
    assert gone in {m["slug"] for m in world.index()["models"]}
    world.hour()  # the sixth run in that situation: its inputs changed, so it resumes
    assert len(world.events(PublicationHalted)) == 5
    assert gone not in {m["slug"] for m in world.index()["models"]}
    assert world.status()["publication"]["halted"] is False
    assert_replayed(world.ledger)


def test_a_person_may_release_a_halted_publication(world: World) -> None:
    world.hour()
    for key in [k for k in world.export.scores if k[0] == "Model F"]:
        del world.export.scores[key]
    world.serve_export()
    world.hour()
    world.hour(6)
    assert len(world.events(PublicationHalted)) == 1
    world.sign(ReleaseHold(hold=PUBLICATION_HOLD, note="Epoch AI removed the model"))
    world.hour()
    assert "Model F" not in {m["slug"] for m in world.index()["models"]}


def test_a_revision_whose_recalibration_fails_stays_frozen_and_is_retried_a_day_later(
    world: World,
) -> None:
    world.hour()
    before = world.scores()
    # Every result re-scored to a level unrelated to capability: the benchmark would lose its
    # loading, so the recalibration that moves it would drop it from the index.
    for i, model in enumerate(sorted(m for m, b in world.export.scores if b == BENCH)):
        world.export.scores[model, BENCH] = round(0.4 + 0.2 * ((i * 7) % 11) / 10, 4)
    world.serve_export()
    world.hour()
    assert [f.kind for f in world.events(BenchmarkFrozen)] == ["revision"]
    nudge(world)
    world.hour(6)
    [attempt] = world.events(RevisionAttempted)
    assert attempt.benchmark == BENCH
    assert world.status()["frozen"] == [BENCH]
    after = world.scores()
    assert all(after[k] == before[k] for k in before if k[1] == BENCH)
    world.hour(23)
    assert len(world.events(RevisionAttempted)) == 1
    world.hour(1)
    assert len(world.events(RevisionAttempted)) == 2
    assert world.events(BenchmarkUnfrozen) == []
