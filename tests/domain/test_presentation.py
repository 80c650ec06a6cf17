"""Section 17, the presentation layer: a run's timeline derived from its recording, and the
edit rules a render obeys (speed up, one trim window, never a failure or the end state cut,
captions only from the timeline)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import msgspec
import pytest

from domain.errors import Rejected
from domain.events import Agent, Evidence, Project, Report, RunRecorded
from domain.events.evidence import Timeline
from domain.evidence import redaction
from domain.evidence.pipeline import Applied
from domain.evidence.timeline import recording_events, run_timeline
from domain.evidence.withholding import as_recorded, credential_may_be_on_screen
from domain.presentation import (
    END_STATE,
    NO_HIDDEN_FAILURE,
    ONE_WINDOW,
    SPEED_UP,
    Edits,
    Trim,
    allowed_edits,
    caption_at,
    frame_plan,
    idle_cap_shortens,
    one_trim_window,
    output_times,
    speed_up_only,
    trim_hides_no_failure,
    trim_keeps_end_state,
)

SHA = "ab" * 32


def cast(events: list[tuple[float, str]], version: int = 2) -> bytes:
    header = {"version": version, "width": 40, "height": 8}
    lines = [json.dumps(header)] + [json.dumps([t, "o", text]) for t, text in events]
    return ("\n".join(lines) + "\n").encode()


def recorded(report: Report | None, status: str = "finished") -> RunRecorded:
    when = datetime(2026, 9, 4, 10, tzinfo=UTC)
    return RunRecorded(
        run_id="r-1",
        cycle="2026-09",
        edition="1.4",
        project=Project(id="p", source_type="repository", pool="public"),
        agent=Agent(id="a", model="m", model_version="1", harness="h", harness_version="1"),
        attempt="standard",
        started_at=when,
        finished_at=when,
        status=status,  # type: ignore[arg-type]
        invalid_reason=None,
        report=report,
        evidence=Evidence(),
    )


REPORT = Report(
    installed=True,
    started=True,
    errors_found=1,
    errors_fixed=1,
    test_depth="tier1_real",
    verified_how="cat out.txt -> hello",
    final_state="serves; decoded",
)
SESSION = [
    (0.0, "$ make\r\n"),
    (1.0, "cc: error: missing header\r\n[exit 2]\r\n"),
    (5.0, "$ apt-get install libfoo-dev && make\r\n"),
    (30.0, "built\r\n[exit 0]\r\n"),
    (31.0, "$ cat out.txt\r\n"),
    (31.5, "hello\r\n"),
]


def timeline() -> Timeline:
    return run_timeline(recorded(REPORT), [cast(SESSION)], SHA)


def test_the_timeline_places_commands_failures_fixes_verification_and_end() -> None:
    marks = [(m.kind, m.time, m.status) for m in timeline().marks]
    assert marks == [
        ("command", 0.0, 2),
        ("failure", 0.0, 2),
        ("command", 5.0, 0),
        ("fixed", 5.0, 0),
        ("command", 31.0, None),
        ("verification", 31.0, None),
        ("end", 31.5, None),
    ]
    failure = timeline().marks[1]
    assert failure.until == 5.0
    assert "cc: error: missing header" in failure.label
    assert timeline().marks[-1].label == "end (finished): serves; decoded"
    assert timeline().errors_unplaced == 0


def test_an_exit_status_of_zero_is_no_failure_whatever_the_output_says() -> None:
    session = [(0.0, "$ grep -c error log\r\n"), (0.5, "3 errors\r\n[exit 0]\r\n")]
    kinds = [m.kind for m in run_timeline(recorded(None), [cast(session)], SHA).marks]
    assert kinds == ["command", "end"]


def test_errors_the_report_counts_that_the_recording_does_not_show_are_unplaced() -> None:
    report = Report(
        installed=True, started=True, errors_found=3, errors_fixed=0, test_depth="tier3_none"
    )
    made = run_timeline(recorded(report), [cast(SESSION)], SHA)
    assert (made.errors_found, made.errors_unplaced) == (3, 2)
    assert [m.kind for m in made.marks].count("fixed") == 0


def test_a_recording_that_shows_no_command_has_only_its_end() -> None:
    made = run_timeline(recorded(None), [cast([(0.5, "ok\r\n")])], SHA)
    assert [(m.kind, m.time) for m in made.marks] == [("end", 0.5)]


def test_a_v3_recording_is_read_with_relative_times() -> None:
    relative = [(0.0, "$ make\r\n"), (1.0, "done\r\n"), (2.0, "$ ls\r\n")]
    assert [t for t, _ in recording_events([cast(relative, version=3)])] == [0.0, 1.0, 3.0]


def test_speed_up_only() -> None:
    speed_up_only(1)
    speed_up_only(4)
    with pytest.raises(Rejected) as refused:
        speed_up_only(0.5)
    assert refused.value.rule == SPEED_UP


def test_idle_cap_shortens() -> None:
    idle_cap_shortens(None)
    idle_cap_shortens(0.5)
    with pytest.raises(Rejected) as refused:
        idle_cap_shortens(0)
    assert refused.value.rule == SPEED_UP


def test_one_trim_window() -> None:
    assert one_trim_window([]) is None
    assert one_trim_window([Trim(start=0, end=2)]) == Trim(start=0, end=2)
    with pytest.raises(Rejected) as refused:
        one_trim_window([Trim(start=0, end=1), Trim(start=3, end=4)])
    assert refused.value.rule == ONE_WINDOW
    with pytest.raises(Rejected):
        one_trim_window([Trim(start=3, end=3)])


@pytest.mark.parametrize(
    ("start", "end"),
    [(0.5, 40), (2, 40), (6, 40), (0, 4)],
    ids=["cuts-its-start", "cuts-its-output", "cuts-all-of-it", "cuts-its-end"],
)
def test_trim_hides_no_failure(start: float, end: float) -> None:
    with pytest.raises(Rejected) as refused:
        trim_hides_no_failure(Trim(start=start, end=end), timeline())
    assert refused.value.rule == NO_HIDDEN_FAILURE
    assert "make" in str(refused.value)


def test_a_trim_before_any_failure_or_around_it_is_allowed() -> None:
    trim_hides_no_failure(Trim(start=0, end=40), timeline())
    trim_hides_no_failure(None, timeline())
    later = run_timeline(recorded(None), [cast([(0, "$ ls\r\n"), *SESSION[1:]])], SHA)
    trim_hides_no_failure(Trim(start=0, end=31.5), later)


def test_trim_keeps_end_state() -> None:
    trim_keeps_end_state(Trim(start=0, end=31.5), timeline())
    with pytest.raises(Rejected) as refused:
        trim_keeps_end_state(Trim(start=0, end=31), timeline())
    assert refused.value.rule == END_STATE


def test_allowed_edits_checks_every_rule_and_lists_the_edits() -> None:
    edits = allowed_edits(timeline(), speed=4, idle_cap=2, captions=True)
    assert edits.names() == ["speed 4", "idle-cap 2", "captions from the timeline"]
    with pytest.raises(Rejected) as refused:
        allowed_edits(timeline(), speed=2, trims=[Trim(start=1, end=40)])
    assert refused.value.rule == NO_HIDDEN_FAILURE


def test_output_times_cap_pauses_then_speed_up_in_order() -> None:
    times = [0.0, 1.0, 5.0, 30.0, 31.0, 31.5]
    placed = output_times(times, Edits(speed=2, idle_cap=2))
    assert placed == [0.0, 0.5, 1.5, 2.5, 3.0, 3.25]
    trimmed = output_times(times, Edits(trim=Trim(start=4, end=40)))
    assert trimmed == [None, None, 1.0, 26.0, 27.0, 27.5]


def test_caption_at_is_only_ever_a_timeline_label() -> None:
    made = timeline()
    labels = {m.label for m in made.marks}
    for time in (0.0, 0.5, 4.9, 5.0, 20.0, 31.2, 31.5, 99.0):
        shown = caption_at(made, time)
        assert shown is None or shown in labels
    assert caption_at(made, 2.0) == made.marks[1].label
    assert caption_at(made, 99.0) == made.marks[-1].label


def test_frame_plan_only_ever_adds_the_next_events_and_ends_on_the_end_state() -> None:
    times = [t for t, _ in SESSION]
    plan = frame_plan(times, Edits(speed=4, idle_cap=2, captions=True), 5, timeline())
    fed = [frame.fed for frame in plan]
    assert fed == sorted(fed)
    assert plan[-1].fed == len(times)
    assert plan[-1].caption == timeline().marks[-1].label
    assert plan[0].time == 0.0


def test_credential_may_be_on_screen() -> None:
    """Section 17: a raw video cannot be redacted; it may show a credential exactly when the
    run's terminal showed one (its security redaction changed the recording or the log)."""
    same = Applied(
        transform=redaction.NAME, version=3, input_sha256=SHA, output_sha256=SHA, counts={}
    )
    changed = msgspec.structs.replace(same, input_sha256="cd" * 32, counts={"run_model_key": 1})
    other = msgspec.structs.replace(changed, transform="neutral-branding")
    video = [as_recorded("ef" * 32)]
    assert (
        credential_may_be_on_screen({"log": [same], "cast": [same, other], "video": video}) is None
    )
    said = credential_may_be_on_screen({"log": [changed], "cast": [same], "video": video})
    assert said is not None
    assert "credential was in the run's log" in said
