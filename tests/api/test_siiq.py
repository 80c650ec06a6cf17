"""SI-IQ through the ledger on SQLite and PostgreSQL: calibrations as events, the published
index, its recomputation, the CLI and the HTTP endpoints."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from litestar.testing import TestClient

from api.http import create_app
from api.services.calibrate import calibrate_files
from api.services.queries import SiiqQueries
from api.wiring import Argusic, Settings
from domain.events import CalibrationAccepted, CalibrationRejected, SiiqInputsRecorded
from domain.siiq.data import read_reference
from domain.siiq.index import recompute
from ledger.ledger import Ledger
from tests.conftest import argusic
from tests.publishing import publish
from tests.siiq_synthetic import Problem, write_inputs


@pytest.fixture(scope="module")
def problem() -> Problem:
    return Problem(models=80, benchmarks=15, present=0.7, seed=21, reference=30)


@pytest.fixture
def inputs(problem: Problem, tmp_path: Path) -> dict[str, Path]:
    return write_inputs(problem, tmp_path)


def calibrate(ledger: Ledger, paths: dict[str, Path]) -> object:
    """A calibration in the synthetic world, whose frozen reference group is its own file's."""
    frozen = read_reference(paths["reference"].read_text())
    return calibrate_files(
        ledger, paths["results"], paths["benchmarks"], paths["reference"], frozen=frozen
    )


def test_a_calibration_is_recorded_with_its_inputs_and_the_index_recomputes(
    ledger: Ledger, inputs: dict[str, Path]
) -> None:
    calibrate(ledger, inputs)
    events = [r.event for r in ledger.events()]
    assert [type(e) for e in events] == [SiiqInputsRecorded, CalibrationAccepted]
    recorded = events[0]
    assert isinstance(recorded, SiiqInputsRecorded)
    assert set(recorded.inputs) == {"results", "benchmarks", "reference"}
    index = SiiqQueries(ledger).index()
    assert index.calibration.accepted
    assert len(index.models) == 80
    assert recompute(index) is None


def test_calibrating_the_same_inputs_again_gives_the_same_bytes(
    ledger: Ledger, inputs: dict[str, Path]
) -> None:
    calibrate(ledger, inputs)
    first = msgspec.json.encode(SiiqQueries(ledger).index())
    calibrate(ledger, inputs)
    second = msgspec.json.encode(SiiqQueries(ledger).index())
    assert first == second
    assert [type(r.event).__name__ for r in ledger.events()] == [
        "SiiqInputsRecorded",
        "CalibrationAccepted",
        "CalibrationAccepted",
    ]


def test_a_rejected_calibration_is_recorded_and_the_last_accepted_stays_in_force(
    ledger: Ledger, problem: Problem, inputs: dict[str, Path], tmp_path: Path
) -> None:
    calibrate(ledger, inputs)
    before = SiiqQueries(ledger).index()
    broken = tmp_path / "broken"
    broken.mkdir()
    summary = calibrate(
        ledger, write_inputs(problem, broken, [*problem.reference, "no-such-model"])
    )
    assert summary.accepted is False  # type: ignore[attr-defined]
    last = list(ledger.events())[-1].event
    assert isinstance(last, CalibrationRejected)
    assert last.calibration.reason == "reference model no-such-model is missing from the fitted set"
    after = SiiqQueries(ledger).index()
    assert after.calibration == before.calibration


def test_a_recalibration_never_changes_the_reference_group_but_a_major_version_may(
    ledger: Ledger, problem: Problem, inputs: dict[str, Path], tmp_path: Path
) -> None:
    """SI-IQ sections 4 and 11: a recalibration with 26 of the 30 members is refused, naming
    the members it would drop; only a major version changes the group."""
    calibrate(ledger, inputs)
    smaller = tmp_path / "smaller"
    smaller.mkdir()
    paths = write_inputs(problem, smaller, problem.reference[:-4])
    summary = calibrate(ledger, paths)
    assert summary.accepted is False  # type: ignore[attr-defined]
    reason = summary.reason  # type: ignore[attr-defined]
    assert reason.startswith("the reference group would change (without ")
    assert all(member in reason for member in problem.reference[-4:])
    assert SiiqQueries(ledger).index().calibration.reference == problem.reference
    files = (paths["results"], paths["benchmarks"], paths["reference"])
    soon = calibrate_files(ledger, *files, major=True, now=datetime.now(UTC))
    assert soon.accepted is False
    assert (soon.reason or "").startswith("a major version at most once a year: ")
    before = {m.slug: m.si_iq_full for m in SiiqQueries(ledger).index().models}
    later = datetime.now(UTC) + timedelta(days=366)
    major = calibrate_files(ledger, *files, major=True, now=later)
    assert major.accepted, major.reason
    assert major.version == "2.0.0"
    index = SiiqQueries(ledger).index()
    assert index.version == "2.0.0"
    after = {m.slug: m.si_iq_full for m in index.models}
    assert [(c.model, c.old, c.new) for c in index.conversion] == [
        (slug, before[slug], after[slug]) for slug in sorted(after) if slug in before
    ]
    assert index.conversion
    assert any(c.old != c.new for c in index.conversion)


def test_the_cli_calibrates_publishes_and_recomputes(
    ledger: Ledger, inputs: dict[str, Path], cli_env: dict[str, str], tmp_path: Path
) -> None:
    result = argusic(
        cli_env,
        "siiq",
        "calibrate",
        "--results",
        str(inputs["results"]),
        "--benchmarks",
        str(inputs["benchmarks"]),
        "--reference",
        str(inputs["reference"]),
        "--frozen",
        str(inputs["reference"]),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert {"accepted", "reason", "version", "shift", "scale", "kappa", "benchmarks"} <= set(
        summary
    )
    assert set(summary["benchmarks"][0]) >= {
        "benchmark",
        "alpha",
        "beta",
        "sigma2",
        "kept",
        "reason",
    }
    document = argusic(cli_env, "siiq", "index", "--json").stdout
    model = json.loads(document)["models"][0]
    assert {
        "slug",
        "theta",
        "se",
        "si_iq",
        "si_iq_low",
        "si_iq_high",
        "ranked",
        "rank",
        "position_range",
        "areas",
        "results",
    } <= set(model)
    path = tmp_path / "index.json"
    path.write_text(document)
    assert argusic(cli_env, "siiq", "recompute", str(path)).returncode == 0
    tampered = json.loads(document)
    tampered["models"][3]["theta"] += 0.001
    path.write_text(json.dumps(tampered))
    check = argusic(cli_env, "siiq", "recompute", str(path))
    assert check.returncode == 1
    assert f"{tampered['models'][3]['slug']}: theta is" in check.stdout


def test_the_http_index_and_model_page(
    ledger: Ledger, inputs: dict[str, Path], settings: Settings
) -> None:
    calibrate(ledger, inputs)
    publish(ledger, settings.home)
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        index = client.get("/data/index.json").json()
        slug = index["models"][0]["slug"]
        page = client.get(f"/siiq/models/{slug}").json()
        assert page["model"]["slug"] == slug
        assert {
            "benchmark",
            "family",
            "area",
            "score",
            "y",
            "v",
            "alpha",
            "beta",
            "sigma2",
            "weight",
        } <= set(page["benchmarks"][0])
        assert client.get("/siiq/models/nobody").status_code == 404


def test_before_any_calibration_the_index_is_empty(ledger: Ledger) -> None:
    index = SiiqQueries(ledger).index()
    assert (index.models, index.calibration.accepted) == ([], False)


def test_the_last_index_of_each_earlier_major_version_stays_in_the_archive(
    ledger: Ledger, problem: Problem, inputs: dict[str, Path], settings: Settings, tmp_path: Path
) -> None:
    """SI-IQ section 3: "el último índice de cada versión mayor anterior sigue disponible para
    descarga en /data/archive/"; a major version not archived is a 404 naming those that are."""
    calibrate(ledger, inputs)
    first = publish(ledger, settings.home)
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        missing = client.get("/data/archive/1/index.json")
        assert missing.status_code == 404
        assert missing.json()["detail"].endswith("archived major versions: none yet")
    smaller = tmp_path / "smaller"
    smaller.mkdir()
    paths = write_inputs(problem, smaller, problem.reference[:-4])
    files = (paths["results"], paths["benchmarks"], paths["reference"])
    a_year_on = datetime.now(UTC) + timedelta(days=366)  # a major version once a year at most
    major = calibrate_files(ledger, *files, major=True, now=a_year_on)
    assert major.version == "2.0.0"
    second = publish(ledger, settings.home)
    with TestClient(app=create_app(Argusic(settings, ledger))) as client:
        archived = client.get("/data/archive/1/index.json")
        assert archived.status_code == 200
        assert archived.content == client.get(f"/data/index.json?as_of={first}").content
        assert archived.json()["version"] == "1.0.0"
        assert client.get("/data/index.json").json()["version"] == "2.0.0"
        for current_or_unknown in (2, 7):
            answer = client.get(f"/data/archive/{current_or_unknown}/index.json")
            assert answer.status_code == 404
            assert answer.json()["detail"] == (
                f"no index of major version {current_or_unknown} is archived (an earlier major "
                "version's last index is); archived major versions: 1"
            )
        assert client.get(f"/data/archive/1/index.json?as_of={first}").status_code == 404
        assert client.get(f"/data/archive/1/index.json?as_of={second}").content == (
            archived.content
        )


def test_a_first_calibration_with_another_reference_group_than_the_frozen_one_is_refused(
    ledger: Ledger, inputs: dict[str, Path], cli_env: dict[str, str]
) -> None:
    files = ["--results", str(inputs["results"]), "--benchmarks", str(inputs["benchmarks"])]
    files += ["--reference", str(inputs["reference"])]
    result = argusic(cli_env, "siiq", "calibrate", *files, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["accepted"] is False
    assert summary["reason"].startswith(
        "the reference group differs from the frozen one of section 4 (without Claude 3.7 Sonnet, "
    )
    [rejected] = [r.event for r in ledger.events() if isinstance(r.event, CalibrationRejected)]
    assert rejected.calibration.reason == summary["reason"]
    accepted = argusic(cli_env, "siiq", "calibrate", *files, "--frozen", files[-1], "--json")
    assert json.loads(accepted.stdout)["accepted"] is True
