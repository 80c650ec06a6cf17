"""The methodology end to end on SQLite and PostgreSQL: records in, ledger events, read models
out, with the exact numbers the rules give."""

from __future__ import annotations

import hashlib
import json
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import pytest

from api.services.ingest import IngestRejected
from api.wiring import Settings, init
from domain.errors import Rejected
from projections.views.editions import editions_view
from projections.views.run import run_view
from projections.views.sources import sources_view
from tests.api.world import World, review
from tests.records import report, run

MISSING = object()


def row(
    agent: str,
    *,
    score: float | None,
    pass_rate: float,
    attempts: int,
    counted: int,
    excluded: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    return {
        "agent": agent,
        "score": score,
        "pass_rate": pass_rate,
        "attempts": attempts,
        "projects_counted": counted,
        "excluded": [{"project": p, "reason": r} for p, r in excluded],
        "label": None,
    }


SCENARIO = [
    *(run(f"a{i}", "steady", "agent-a", s) for i, s in enumerate(["100", "100", "92"])),
    *(run(f"a{i + 3}", "shaky", "agent-a", s) for i, s in enumerate(["T", "T", "40"])),
    *(run(f"a{i + 6}", "exact30", "agent-a", s) for i, s in enumerate(["70", "100", "100"])),
    *(run(f"b{i}", "steady", "agent-b", s) for i, s in enumerate(["80", "92", "100"])),
    *(run(f"b{i + 3}", "shaky", "agent-b", s) for i, s in enumerate(["T", "T", "T"])),
    *(run(f"c{i}", "broken", "agent-c", s) for i, s in enumerate(["no-start", "40", "40"])),
    *(
        run(f"d{i}", "broken", "agent-d", s)
        for i, s in enumerate(["no-start", "no-start", "no-start"])
    ),
    *(run(f"d{i + 3}", "shaky", "agent-d", s) for i, s in enumerate(["T", "40", "T"])),
    *(run(f"e{i}", "shaky", "agent-e", s) for i, s in enumerate(["100", "100", "100"])),
]


def test_the_leaderboard_of_a_cycle(world: World) -> None:
    world.ingest(SCENARIO)
    shaky, broken = ("shaky", "unstable"), ("broken", "under_review")
    assert world.leaderboard() == [
        # middles: steady 100, exact30 100 (spread exactly 30%: stable); shaky 0 with a 40: unstable
        row("agent-a", score=100.0, pass_rate=5 / 9, attempts=9, counted=2, excluded=(shaky,)),
        row("agent-e", score=100.0, pass_rate=1.0, attempts=3, counted=1),
        # middles: steady 92, shaky 0 (three zeros: stable) -> the middle of 92 and 0
        row("agent-b", score=46.0, pass_rate=2 / 6, attempts=6, counted=2),
        # every agent failed "broken": under review, so agent-c has nothing that counts
        row("agent-c", score=None, pass_rate=0.0, attempts=3, counted=0, excluded=(broken,)),
        row("agent-d", score=None, pass_rate=0.0, attempts=6, counted=0, excluded=(broken, shaky)),
    ]
    assert [
        (p["project"], p["middle"], p["status"]) for p in world.leaderboard_projects("agent-a")
    ] == [
        ("exact30", 100.0, "counted"),
        ("shaky", None, "unstable"),
        ("steady", 100.0, "counted"),
    ]
    assert all(len(p["runs"]) == 3 for p in world.leaderboard_projects("agent-a"))


def test_a_project_page(world: World) -> None:
    world.ingest(SCENARIO)
    page = msgspec.to_builtins(world.project("shaky"))
    assert page["verdict"] == "works"  # agent-e passed it fully
    sets = {(s["agent"], s["cycle"]): s for s in page["sets"]}
    assert sets["agent-a", "2026-09"] == {
        "agent": "agent-a",
        "cycle": "2026-09",
        "scores": [0.0, 0.0, 40.0],
        "median": 0.0,
        "spread": None,
        "unstable": True,
    }
    assert sets["agent-b", "2026-09"]["spread"] == 0.0
    assert sets["agent-b", "2026-09"]["unstable"] is False
    assert page["under_review"] is False
    assert world.project("broken").under_review is True


def test_evidence_is_fingerprinted_and_stored_by_content(world: World) -> None:
    world.ingest([run("r1", "p", "agent-a", "100")])
    view = world.reads().answer("r", partial(run_view, run_id="r1"))
    for kind in ("log", "cast"):
        data = (world.folder / f"run.{kind}").read_bytes()
        fingerprint = getattr(view.run.evidence, kind)
        assert fingerprint.sha256 == hashlib.sha256(data).hexdigest()
        assert fingerprint.bytes == len(data)
        assert world.store.path(fingerprint.sha256).read_bytes() == data


def test_a_run_without_a_full_recording_is_recorded_invalid_and_never_scored(world: World) -> None:
    world.ingest(
        [
            run("r1", "p", "agent-a", "100", cast=None),
            run(
                "r2",
                "p",
                "agent-a",
                "100",
                status="invalid",
                invalid_reason="harness lost the report",
            ),
        ]
    )
    for run_id, reason in (("r1", "no full terminal recording"), ("r2", "harness lost the report")):
        view = world.reads().answer(run_id, partial(run_view, run_id=run_id))
        assert (view.valid, view.outcome, view.score, view.invalid_reason) == (
            False,
            None,
            None,
            reason,
        )
    assert world.leaderboard() == []
    # no valid run of a repository anywhere yet: the source is not started (section 6a)
    assert world.project("p").verdict is None
    world.ingest([run("r3", "q", "agent-a", "80")])
    assert world.project("p").verdict == "not_yet_verified"


BAD = {
    "wrong type": ({"run_id": 42}, "Expected `str`, got `int` - at `$.run_id`"),
    "missing field": ({"agent": MISSING}, "Object missing required field `agent`"),
    "unknown enum value": ({"status": "done"}, "Invalid enum value 'done' - at `$.status`"),
    "negative count": (
        {"report": report(True, True, -1, 0, "tier1_real")},
        "Expected `int` >= 0 - at `$.report.errors_found`",
    ),
    "fixed > found": (
        {"report": report(True, True, 1, 2, "tier1_real")},
        "a run cannot fix more errors than it found (section 8)",
    ),
    "unknown edition": ({"edition": "7.7"}, "edition 7.7 is not in the changelog (section 20)"),
    "dates out of order": (
        {"finished_at": "2026-09-01T00:00:00Z"},
        "finished_at is before started_at (section 7)",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_one_bad_record_among_good_ones_appends_nothing_and_is_named(
    world: World, case: str
) -> None:
    change, message = BAD[case]
    before = world.ledger.size()
    bad = {
        k: v for k, v in (run("bad", "p", "agent-a", "100") | change).items() if v is not MISSING
    }
    records = [
        run("ok1", "p", "agent-a", "100"),
        bad,
        run("ok2", "p", "agent-a", "100"),
    ]
    with pytest.raises(IngestRejected) as rejected:
        world.ingest(records)
    assert [(r.line, r.reason) for r in rejected.value.rejections] == [(2, message)]
    assert world.ledger.size() == before


def test_reingesting_the_same_run_is_idempotent_and_a_changed_one_is_refused(world: World) -> None:
    world.ingest([run("r1", "p", "agent-a", "100")])
    size = world.ledger.size()
    world.ingest([run("r1", "p", "agent-a", "100")])
    assert world.ledger.size() == size
    with pytest.raises(IngestRejected, match="1 record"):
        world.ingest([run("r1", "p", "agent-a", "92")])
    assert world.ledger.size() == size


def test_the_leaderboard_as_of_before_a_run_arrived_does_not_have_it(
    world: World, tmp_path: Path
) -> None:
    world.ingest(SCENARIO)
    before = world.ledger.size()
    world.ingest([run(f"late{i}", "exact30", "agent-b", "100") for i in range(3)])
    assert world.leaderboard(as_of=before) == leaderboard_of_the_scenario_alone(tmp_path)
    assert world.leaderboard() != world.leaderboard(as_of=before)


def leaderboard_of_the_scenario_alone(tmp_path: Path) -> list[dict[str, Any]]:
    """The same scenario in a ledger of its own, where the late runs never arrived."""
    other, _ = init(Settings(f"sqlite:///{tmp_path}/other.db", tmp_path / "other-home", "json"))
    folder = tmp_path / "other"
    folder.mkdir()
    alone = World(other, folder)
    alone.ingest(SCENARIO)
    rows = alone.leaderboard()
    other.close()
    return rows


def test_a_later_edition_changes_nothing_about_older_runs(world: World) -> None:
    world.ingest(SCENARIO)
    reads = world.reads()
    older = [
        msgspec.to_builtins(reads.answer(r["run_id"], partial(run_view, run_id=r["run_id"])))
        for r in SCENARIO
    ]
    verdicts = {p: world.project(p).verdict for p in ("steady", "shaky", "broken")}
    world.ingest(
        [
            {"kind": "edition", "version": "1.5", "drafted": "2026-10-08", "summary": "later"},
            run("new", "steady", "agent-e", "T", edition="1.5", day=20),
        ]
    )
    reads = world.reads()
    for before in older:
        after = msgspec.to_builtins(
            reads.answer(before["run_id"], partial(run_view, run_id=before["run_id"]))
        )
        assert {k: v for k, v in after.items() if k != "as_of"} == {
            k: v for k, v in before.items() if k != "as_of"
        }
    assert {p: world.project(p).verdict for p in verdicts} == verdicts


def test_a_project_finding_lets_the_failures_count(world: World) -> None:
    world.ingest(SCENARIO)
    assert world.project("broken").under_review_in == ["2026-09"]
    with pytest.raises(Rejected, match="not under review in 2026-09"):
        world.act(review("steady", "project"))
    world.act(review("broken", "project", "the project needs a GPU it does not declare"))
    page = world.project("broken")
    assert (page.under_review, page.under_review_in) == (False, [])
    assert [(r.cycle, r.finding, r.reviewer) for r in page.reviews] == [
        ("2026-09", "project", "rita")
    ]
    rows = {r["agent"]: r for r in world.leaderboard()}
    # broken, now counted: agent-d 30, 30, 30 (installed, not started, nothing found: 30)
    assert (rows["agent-d"]["score"], rows["agent-d"]["excluded"]) == (
        30.0,
        [{"project": "shaky", "reason": "unstable"}],
    )
    assert rows["agent-c"]["score"] == 40.0  # 30, 40, 40: the middle is 40, spread 25%


def test_an_environment_finding_voids_the_cycles_failed_runs_and_reruns_them(
    world: World,
) -> None:
    world.ingest(SCENARIO)
    before = world.ledger.size()
    world.act(review("broken", "environment", "a system package was missing"))
    reason = "environment fault: a system package was missing"
    for run_id in ("c0", "c1", "c2", "d0", "d1", "d2"):
        view = world.reads().answer(run_id, partial(run_view, run_id=run_id))
        assert (view.valid, view.invalid_reason, view.rerun_requested) == (False, reason, reason)
    appended = [e.event for e in world.ledger.events(before)]
    assert [type(e).__name__ for e in appended][-13:] == ["ProjectReviewed"] + [
        "RunVoided",
        "RerunRequested",
    ] * 6
    assert {
        getattr(e, "why", None) for e in appended[-12:] if type(e).__name__ == "RerunRequested"
    } == {"environment_review"}
    rows = {r["agent"]: r for r in world.leaderboard()}
    assert "agent-c" not in rows  # its only runs are voided: nothing of it counts
    assert rows["agent-d"]["excluded"] == [{"project": "shaky", "reason": "unstable"}]
    assert not world.project("broken").under_review
    # the reruns fail again with every agent: under review again, for a person to look at
    world.ingest([run(f"x{i}", "broken", a, "T") for i, a in enumerate(["agent-c", "agent-d"])])
    assert world.project("broken").under_review_in == ["2026-09"]


def test_under_review_is_judged_within_one_cycle(world: World) -> None:
    world.ingest(SCENARIO)
    september = world.leaderboard()
    agents = ["agent-a", "agent-b"]
    world.ingest([run(f"o{i}", "steady", a, "T", cycle="2026-10") for i, a in enumerate(agents)])
    assert world.leaderboard() == september  # a later cycle's failures change nothing here
    assert world.project("steady").under_review_in == ["2026-10"]


def test_an_incomplete_set_is_listed_as_excluded(world: World) -> None:
    world.ingest([*SCENARIO, run("a9", "fresh", "agent-a", "100")])
    rows = {r["agent"]: r for r in world.leaderboard()}
    assert rows["agent-a"]["excluded"] == [
        {"project": "fresh", "reason": "incomplete"},
        {"project": "shaky", "reason": "unstable"},
    ]


def test_verdicts_follow_the_edition_each_attempt_ran_with(world: World) -> None:
    world.ingest(
        [
            run("o1", "old", "agent-a", "no-start", edition="1.2", day=4),
            run("o2", "old", "agent-a", "T", edition="1.2", attempt="retry", day=4),
            run("n1", "new", "agent-a", "no-start", edition="1.3", day=6),
            run("n2", "new", "agent-a", "T", edition="1.3", attempt="retry", day=6),
            run("m1", "mocked", "agent-a", "92"),
            run("w1", "works", "agent-a", "no-start"),
            run(
                "w2", "works", "agent-a", "100", attempt="retry", cast=None
            ),  # invalid: never counts
        ]
    )
    verdicts = {p: world.project(p).verdict for p in ("old", "new", "mocked", "works")}
    assert verdicts == {
        "old": "not_yet_verified",
        "new": "could_not_verify",
        "mocked": "works_with_mocks",
        "works": "not_yet_verified",
    }
    world.ingest([run("o3", "old", "agent-strong", "40", edition="1.2", attempt="stronger", day=5)])
    assert world.project("old").verdict == "could_not_verify"


def test_editions_take_effect_from_the_first_run_measured_with_them(world: World) -> None:
    world.ingest(
        [
            run("r1", "p", "agent-a", "100", edition="1.2", day=4),
            run("r2", "p", "agent-a", "100", edition="1.2", day=9),
        ]
    )
    view = msgspec.to_builtins(world.reads().answer("e", editions_view))
    editions = {e["version"]: e for e in view["editions"]}
    assert (editions["1.2"]["drafted"], editions["1.2"]["effective_since"]) == (
        "2026-09-05",
        "2026-09-04",
    )
    assert editions["1.2"]["differs_from_drafted"] is True
    assert (editions["1.4"]["effective_since"], editions["1.4"]["differs_from_drafted"]) == (
        None,
        False,
    )


def test_sources_in_use_count_the_published_projects_tested(world: World) -> None:
    world.ingest(
        [
            run("r1", "p", "agent-a", "100"),
            run("r2", "q", "agent-a", "T"),
            run("r3", "m", "agent-a", "100", source_type="huggingface_model"),
            run("r4", "s", "agent-a", "100", source_type="mcp_server", pool="secret"),
            run("r5", "x", "agent-a", "100", source_type="package", cast=None),
        ]
    )
    view = msgspec.to_builtins(world.reads().answer("s", sources_view))
    table = {s["source_type"]: (s["status"], s["projects_tested"]) for s in view["sources"]}
    assert table == {
        "repository": ("in_use", 2),
        "huggingface_model": ("in_use", 1),
        "huggingface_space": ("declared_not_started", 0),
        "package": ("declared_not_started", 0),
        "vendor_tool": ("declared_not_started", 0),
        "cloud_template": ("declared_not_started", 0),
        "container_image": ("declared_not_started", 0),
        "mcp_server": ("declared_not_started", 0),
    }
    assert json.dumps(view)  # the document is plain JSON
    in_use = world.reads().look(lambda state, _: state.sources_in_use())
    assert in_use == {s for s, (status, _) in table.items() if status == "in_use"}


@pytest.mark.parametrize(
    ("profile", "lines", "outcome"),
    [
        ("100", (30, 30, 20, 20, 100), "pass_full"),  # nothing went wrong: the full 20 for recovery
        ("92", (30, 30, 20, 12, 92), "pass_mock"),
        ("80", (30, 30, 20, 0, 80), "fail"),  # installed and started but unverified: 80, a fail
        ("70", (30, 30, 10, 0, 70), "fail"),  # one of two errors fixed
        ("30", (30, 0, 0, 0, 30), "fail"),  # depth requires start
        ("T", (0, 0, 0, 0, 0), "timeout"),  # a timeout scores 0 on every line
    ],
)
def test_the_rubric_through_the_ledger(
    world: World, profile: str, lines: tuple[int, ...], outcome: str
) -> None:
    world.ingest([run("r1", "p", "agent-a", profile)])
    view = world.reads().answer("r", partial(run_view, run_id="r1"))
    assert view.score_lines is not None
    score = view.score_lines
    assert (score.install, score.start, score.recovery, score.depth, score.total) == lines
    assert (view.outcome, view.score) == (outcome, lines[-1])


def test_start_requires_install_through_the_ledger(world: World) -> None:
    record = run("r1", "p", "agent-a", "100")
    record["report"] = record["report"] | {"installed": False}
    world.ingest([record])
    view = world.reads().answer("r", partial(run_view, run_id="r1"))
    assert (view.score, view.outcome) == (0.0, "fail")  # not installed: nothing recovered
