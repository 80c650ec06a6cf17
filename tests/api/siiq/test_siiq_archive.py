"""SI-IQ sections 3 and 11 over the updates' publications: once a new major version is
published, the last index published under the one before stays at /data/archive/{major}/."""

from __future__ import annotations

from pathlib import Path

from api.services.calibrate import calibrate_files
from domain.events import SiiqPublished
from domain.events.operators import ReleaseHold
from projections.siiq import PUBLICATION_HOLD
from tests.api.siiq.conftest import World
from tests.siiq_synthetic import Problem, write_inputs


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
    problem = Problem(models=40, benchmarks=10, present=0.8, seed=5, reference=20)
    paths = write_inputs(problem, tmp_path)
    major = calibrate_files(
        world.ledger, paths["results"], paths["benchmarks"], paths["reference"], major=True
    )
    assert major.version == "2.0.0"
    world.approve()
    assert archive(world, 1)[0] == 404  # not published yet: version 1's index is still served
    world.hour()  # every ranked model would vanish under the new benchmarks: halted
    assert archive(world, 1)[0] == 404
    world.sign(ReleaseHold(hold=PUBLICATION_HOLD, note="a new major version"))
    world.hour()
    assert world.events(SiiqPublished)[-1].version.startswith("2.")
    assert world.index()["version"].startswith("2.")
    assert archive(world, 1) == (200, last_of_1)
    assert world.client.get(f"/data/index.json?as_of={approved}").content == last_of_1
    status, _ = archive(world, 2)
    assert status == 404
