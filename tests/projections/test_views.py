"""The pure views, folded straight from domain events (no database): the run-wide withholding
rule, a run's set defined once, and "not found" as our own error."""

from __future__ import annotations

from datetime import UTC, date, datetime

import msgspec
import pytest

from domain.errors import NotFound
from domain.events import (
    Agent,
    DomainEvent,
    EditionDrafted,
    Evidence,
    EvidenceTransformed,
    Fingerprint,
    Project,
    ProjectReviewed,
    RecordingWithheld,
    Report,
    RerunRequested,
    RunRecorded,
    RunVoided,
)
from domain.events.operators import Review
from domain.state.methodology import Methodology
from ledger.ledger import RecordedEvent
from projections.base import fold
from projections.methodology import MethodologyProjection
from projections.views.cycles import cycles_view
from projections.views.evidence import served_copy
from projections.views.leaderboard import leaderboard_view
from projections.views.project import project_view
from projections.views.projects import projects_view
from projections.views.trace import trace_basis
from tests.signing import AT, Operator

T0 = datetime(2026, 9, 10, 10, tzinfo=UTC)
FILE = Fingerprint(sha256="a" * 64, bytes=10)


def recorded_run(
    run_id: str, agent: str, found: int, fixed: int, cycle: str = "2026-09"
) -> RunRecorded:
    return RunRecorded(
        run_id=run_id,
        cycle=cycle,
        edition="1.3",
        project=Project(id="p", source_type="repository", pool="public"),
        agent=Agent(id=agent, model="m", model_version="1", harness="h", harness_version="1"),
        attempt="standard",
        started_at=T0,
        finished_at=T0,
        status="finished",
        invalid_reason=None,
        report=Report(
            installed=True,
            started=True,
            errors_found=found,
            errors_fixed=fixed,
            test_depth="tier1_real",
        ),
        evidence=Evidence(log=FILE, cast=FILE),
    )


def transformed(run_id: str, kind: str) -> EvidenceTransformed:
    return EvidenceTransformed(
        run_id=run_id,
        kind=kind,
        transform="security-redaction",
        version=1,
        input_sha256="a" * 64,
        output_sha256="b" * 64,
        counts={},
    )


def state_of(*events: DomainEvent) -> Methodology:
    every = [EditionDrafted(version="1.3", drafted=date(2026, 9, 5), summary=""), *events]
    recorded = (
        RecordedEvent(position=p, stream=e.stream, version=1, recorded_at=AT, hash=b"", event=e)
        for p, e in enumerate(every, 1)
    )
    return fold(MethodologyProjection(), recorded)


def test_a_served_copy_names_its_fingerprints_and_transforms() -> None:
    state = state_of(
        recorded_run("r1", "a", 0, 0), transformed("r1", "log"), transformed("r1", "cast")
    )
    copy = served_copy(state, 4, "r1", "log")
    assert (copy.withheld, copy.served_sha256, copy.media_type) == (
        None,
        "b" * 64,
        "text/plain; charset=utf-8",
    )
    assert copy.transforms == ["security-redaction@1"]


def test_one_withheld_file_withholds_every_file_of_the_run() -> None:
    state = state_of(
        recorded_run("r1", "a", 0, 0),
        transformed("r1", "log"),
        RecordingWithheld(run_id="r1", kind="cast", input_sha256="a" * 64, reason="unparseable"),
    )
    assert served_copy(state, 4, "r1", "log").withheld == "cast withheld: unparseable"
    assert served_copy(state, 4, "r1", "cast").withheld == "cast withheld: unparseable"


def test_what_is_not_there_is_not_found() -> None:
    state = state_of(recorded_run("r1", "a", 0, 0), transformed("r1", "log"))
    for missing in (("r2", "log"), ("r1", "cast"), ("r1", "raw")):
        with pytest.raises(NotFound):
            served_copy(state, 3, *missing)
    with pytest.raises(NotFound):
        project_view(state, 3, "nothing")


def test_a_runs_set_is_the_same_in_its_trace_and_on_its_project_page() -> None:
    state = state_of(
        recorded_run("r1", "a", 2, 2),
        recorded_run("r2", "a", 2, 1),
        recorded_run("r3", "a", 2, 0),
        recorded_run("r4", "b", 2, 2),  # another agent: another set
        recorded_run("r5", "a", 2, 2, cycle="2026-10"),  # another cycle: another set
    )
    basis = trace_basis(state, 6, "r2")
    (page_set,) = [
        s for s in project_view(state, 6, "p").sets if (s.agent, s.cycle) == ("a", "2026-09")
    ]
    assert basis.set == page_set
    assert basis.set is not None
    assert basis.set.scores == [100.0, 90.0, 80.0]
    assert basis.positions == [1, 2, 3, 4]  # the edition and the set's three runs


def test_each_leaderboard_figure_names_the_runs_behind_it() -> None:
    state = state_of(
        recorded_run("r1", "a", 2, 2),
        recorded_run("r2", "a", 2, 1),
        recorded_run("r3", "a", 2, 0),
        recorded_run("r4", "b", 2, 2),  # b has one run: its set is not complete
    )
    board = leaderboard_view(state, 5, "2026-09")
    (a,) = [r for r in board.rows if r.agent == "a"]
    assert [(c.project, c.middle, c.status, c.runs) for c in a.projects] == [
        ("p", 90.0, "counted", ["r1", "r2", "r3"])
    ]
    assert a.score == a.projects[0].middle
    (b,) = [r for r in board.rows if r.agent == "b"]
    assert [(c.middle, c.status, c.runs) for c in b.projects] == [(None, "incomplete", ["r4"])]
    assert b.score is None


def test_an_excluded_project_is_named_with_its_runs_and_reason() -> None:
    state = state_of(
        recorded_run("r1", "a", 0, 0),
        recorded_run("r2", "a", 0, 0),
        msgspec.structs.replace(recorded_run("r3", "a", 0, 0), status="timeout"),
    )  # 100, 100, 0: a spread of 100% > 30%
    (row,) = leaderboard_view(state, 4, "2026-09").rows
    assert [(e.project, e.reason) for e in row.excluded] == [("p", "unstable")]
    assert [(c.status, c.middle, c.runs) for c in row.projects] == [
        ("unstable", None, ["r1", "r2", "r3"])
    ]


def test_cycles_are_listed_oldest_first_and_the_latest_is_current() -> None:
    state = state_of(
        recorded_run("r1", "a", 0, 0, cycle="2026-10"),
        recorded_run("r2", "b", 0, 0, cycle="2026-09"),
        recorded_run("r3", "a", 0, 0, cycle="2026-10"),
    )
    view = cycles_view(state, 4)
    assert [(c.cycle, c.runs, c.agents, c.projects) for c in view.cycles] == [
        ("2026-09", 1, 1, 1),
        ("2026-10", 2, 1, 1),
    ]
    assert view.current == "2026-10"
    assert cycles_view(state_of(), 1).current is None


def test_a_projects_review_history_is_every_review_in_ledger_order() -> None:
    """Each signed review is recorded where its decision lands: right after its action."""
    owner, timed_out = Operator(), {"status": "timeout"}

    def failed(run_id: str, agent: str) -> RunRecorded:
        return msgspec.structs.replace(recorded_run(run_id, agent, 0, 0), **timed_out)

    def reviewed(finding: str, note: str, *voided: str) -> list[DomainEvent]:
        """The signed review, with what it decides: its record, each failed run voided and run
        again."""
        review = Review(project="p", cycle="2026-09", finding=finding, note=note)
        recorded = ProjectReviewed(
            project_id="p", cycle="2026-09", finding=finding, reviewer=owner.name, note=note
        )
        reason = f"environment fault: {note}"
        again = [
            e
            for r in voided
            for e in (RunVoided(run_id=r, reason=reason), RerunRequested(run_id=r, reason=reason))
        ]
        return owner.signs(review, recorded, *again)

    state = state_of(
        failed("r1", "a"),
        failed("r2", "b"),
        *owner.registers(),
        *reviewed("environment", "1", "r1", "r2"),  # at 6, its record at 7
        failed("r3", "a"),
        failed("r4", "b"),
        *reviewed("project", "2"),  # at 14: under review again, and the failures now stand
    )
    reviews = project_view(state, 15, "p").reviews
    assert [(r.position, r.reviewer, r.note) for r in reviews] == [
        (7, "olga", "1"),
        (15, "olga", "2"),
    ]
    assert {"r1", "r2"} <= set(state.voided)


def test_every_project_is_listed_with_its_verdict_and_attempts() -> None:
    invalid = msgspec.structs.replace(
        recorded_run("r2", "a", 0, 0), status="invalid", invalid_reason="harness crashed"
    )
    state = state_of(recorded_run("r1", "a", 0, 0), invalid)
    (row,) = projects_view(state, 3).projects
    assert (row.project, row.verdict, row.attempts, row.valid_attempts) == ("p", "works", 2, 1)
    assert row.verdict == project_view(state, 3, "p").verdict
