"""SI-IQ sections 3 and 11 over the updates' publications: once a new major version is
published, the last index published under the one before stays at /data/archive/{major}/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from api.services.calibrate import calibrate_files
from domain.events import SiiqInputsRecorded, SiiqPublished
from tests.api.siiq.conftest import World
from tests.siiq_synthetic import write_files


def archive(world: World, major: int) -> tuple[int, bytes]:
    answer = world.client.get(f"/data/archive/{major}/index.json")
    return answer.status_code, answer.content


def test_the_last_published_index_of_a_major_version_is_archived_once_the_next_is_published(
    world: World, tmp_path: Path
) -> None:
    world.hour()
    world.hour()
    last_of_1 = world.client.get("/data/index.json").content
    approved = world.status()["as_of"]
    # the inputs in force with one result fewer, as a major version: every check that still
    # applies passes
    inputs = world.events(SiiqInputsRecorded)[-1]
    paths = write_files(tmp_path, inputs.results[:-1], inputs.benchmarks, inputs.reference)
    files = (paths["results"], paths["benchmarks"], paths["reference"])
    a_year_on = world.now + timedelta(days=366)  # section 4: a major version once a year at most
    major = calibrate_files(world.ledger, *files, major=True, now=a_year_on)
    assert major.version == "2.0.0", major.reason
    world.approve()
    assert archive(world, 1)[0] == 404  # not published yet: version 1's index is still served
    world.hour()
    assert world.events(SiiqPublished)[-1].version.startswith("2.")
    assert world.index()["version"].startswith("2.")
    assert archive(world, 1) == (200, last_of_1)
    assert world.client.get(f"/data/index.json?as_of={approved}").content == last_of_1
    status, _ = archive(world, 2)
    assert status == 404
