"""Run records against the rules of input (sections 7, 8, 11, 13, 20), validity, budgets."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.errors import Rejected
from domain.events import Evidence, Fingerprint
from domain.runs import (
    RunRecord,
    admit_run,
    invalid_reason,
    run_outcome,
    run_score,
    time_budget_minutes,
)
from domain.scoring import NO_CREDIT as NO_LINES
from tests.records import report, run

FULL = Evidence(
    log=Fingerprint(sha256="a" * 64, bytes=10), cast=Fingerprint(sha256="b" * 64, bytes=20)
)
EDITIONS = {"1.0", "1.1", "1.2", "1.3"}
PROJECT = {"id": "p", "source_type": "repository", "pool": "public"}


def decode(record: dict[str, Any]) -> RunRecord:
    return msgspec.json.decode(msgspec.json.encode(record), type=RunRecord)


def recorded(overrides: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    record = run("r1", "p", "a", "100", **kwargs) | (overrides or {})
    (event,) = admit_run(decode(record), FULL, EDITIONS, None)
    return event


def test_a_run_is_recorded_with_its_fingerprints_in_utc() -> None:
    event = recorded(
        {"started_at": "2026-09-10T12:00:00+02:00", "finished_at": "2026-09-10T13:00:00+02:00"}
    )
    assert event.started_at.isoformat() == "2026-09-10T10:00:00+00:00"
    assert event.evidence == FULL


@pytest.mark.parametrize(
    ("overrides", "rule"),
    [
        ({"edition": "9.9"}, "section 20"),
        ({"finished_at": "2026-09-10T09:00:00Z"}, "section 7"),
        ({"report": report(True, True, 1, 2, "tier1_real")}, "section 8"),
        ({"report": None}, "section 8"),
        ({"status": "invalid", "invalid_reason": None}, "section 11"),
    ],
)
def test_records_breaking_a_rule_are_rejected_naming_it(
    overrides: dict[str, Any], rule: str
) -> None:
    with pytest.raises(Rejected) as rejected:
        admit_run(decode(run("r1", "p", "a", "100") | overrides), FULL, EDITIONS, None)
    assert rejected.value.rule == rule


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"attempt": "fourth"}, "$.attempt"),
        ({"status": "done"}, "$.status"),
        ({"cycle": "2026-13"}, "$.cycle"),
        (
            {"project": {"id": "p", "source_type": "website", "pool": "public"}},
            "$.project.source_type",
        ),
        ({"report": report(True, True, -1, 0, "tier1_real")}, "$.report.errors_found"),
        ({"started_at": "2026-09-10T10:00:00"}, "$.started_at"),
        ({"run_id": 7}, "$.run_id"),
    ],
)
def test_malformed_records_name_the_field(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=rf"at `\{field}`"):
        decode(run("r1", "p", "a", "100") | overrides)


def test_a_missing_field_is_named() -> None:
    record = run("r1", "p", "a", "100")
    del record["agent"]
    with pytest.raises(msgspec.ValidationError, match="missing required field `agent`"):
        decode(record)


def test_the_same_record_again_records_nothing_and_a_changed_one_is_refused() -> None:
    first = recorded()
    assert admit_run(decode(run("r1", "p", "a", "100")), FULL, EDITIONS, first) == []
    with pytest.raises(Rejected, match="already recorded differently"):
        admit_run(decode(run("r1", "p", "a", "92")), FULL, EDITIONS, first)


def test_a_run_without_a_full_log_or_recording_is_invalid() -> None:
    assert invalid_reason(recorded()) is None
    no_cast = msgspec.structs.replace(recorded(), evidence=Evidence(log=FULL.log))
    assert invalid_reason(no_cast) == "no full terminal recording"
    empty_log = msgspec.structs.replace(
        recorded(), evidence=Evidence(log=Fingerprint(sha256="c" * 64, bytes=0), cast=FULL.cast)
    )
    assert invalid_reason(empty_log) == "no full log"


def test_a_run_cut_short_by_our_tools_keeps_its_reason() -> None:
    event = recorded({"status": "invalid", "invalid_reason": "harness crashed"})
    assert invalid_reason(event) == "harness crashed"


@pytest.mark.parametrize(
    ("edition", "project", "minutes"),
    [
        ("1.2", {}, 45),
        ("1.3", {}, 90),
        ("1.1", {"heavy": True}, 45),
        ("1.2", {"heavy": True}, 120),
        ("1.3", {"repo_size_mb": 501}, 120),
        ("1.3", {"repo_size_mb": 500}, 90),
        ("1.0", {"needs_gpu": True}, 120),
    ],
)
def test_time_budget(edition: str, project: dict[str, Any], minutes: int) -> None:
    project = {"id": "p", "source_type": "repository", "pool": "public"} | project
    event = recorded({"edition": edition, "project": project})
    assert time_budget_minutes(event.edition, event.project) == minutes
    assert event.budget_minutes == minutes  # stored on the run, as its edition assigned it


def test_a_cancelled_run_is_recorded_invalid_and_never_counted() -> None:
    event = recorded({"status": "cancelled", "report": None})
    assert invalid_reason(event) == "cancelled"
    assert run_outcome(event) is None
    assert run_score(event) is None


@pytest.mark.parametrize(
    ("edition", "finished", "expected"),
    [
        ("1.2", "2026-09-10T10:45:00Z", "pass_full"),  # exactly 45 minutes: in time
        ("1.2", "2026-09-10T10:46:00Z", "timeout"),  # 46 of 45 minutes
        ("1.3", "2026-09-10T11:30:00Z", "pass_full"),  # 90 of 90 minutes
        ("1.3", "2026-09-10T11:31:00Z", "timeout"),
    ],
)
def test_time_budget_a_run_over_its_budget_is_a_timeout_whatever_its_status_says(
    edition: str, finished: str, expected: str
) -> None:
    event = recorded(
        {"edition": edition, "started_at": "2026-09-10T10:00:00Z", "finished_at": finished}
    )
    assert event.status == "finished"
    assert run_outcome(event) == expected
    assert (run_score(event) or NO_LINES).total == (0 if expected == "timeout" else 100)


def test_time_budget_configured_by_the_orchestrator_is_the_one_stored() -> None:
    (event,) = admit_run(
        decode(run("r1", "p", "a", "100")), FULL, EDITIONS, None, budget_minutes=0.5
    )
    assert event.budget_minutes == 0.5
    assert run_outcome(event) == "timeout"  # forty minutes against half a minute


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        ({"agent": {"model": "other"}}, "agent.model"),
        ({"agent": {"model_version": "2026-09-01"}}, "agent.model_version"),
        ({"agent": {"harness": "h2"}}, "agent.harness"),
        ({"agent": {"harness_version": "2.0"}}, "agent.harness_version"),
        ({"project": {"commit": "c2"}}, "project.commit"),
    ],
)
def test_identical_conditions_within_a_set(changed: dict[str, Any], field: str) -> None:
    first = recorded({"project": PROJECT | {"commit": "c1"}})
    record = run("r2", "p", "a", "100")
    record["project"] = PROJECT | {"commit": "c1"} | changed.get("project", {})
    record["agent"] = record["agent"] | changed.get("agent", {})
    with pytest.raises(Rejected, match=f"run r2: {field} is") as rejected:
        admit_run(decode(record), FULL, EDITIONS, None, first_of_set=first)
    assert rejected.value.rule == "sections 4 and 14"
    assert "(a on p in 2026-09)" in rejected.value.reason
    same = run("r2", "p", "a", "92") | {"project": PROJECT | {"commit": "c1"}}
    assert admit_run(decode(same), FULL, EDITIONS, None, first_of_set=first)


def test_the_image_digest_is_recorded_and_must_be_one() -> None:
    digest = "sha256:" + "c" * 64
    assert recorded({"image_digest": digest}).image_digest == digest
    with pytest.raises(msgspec.ValidationError, match="image_digest"):
        decode(run("r1", "p", "a", "100") | {"image_digest": "latest"})
