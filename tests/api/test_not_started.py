"""Section 6a, "y no un día antes": a project of a source type not yet in use (here a public
Hugging Face space whose every run is invalid) has no verdict, count, attempt, run or page of
its own in any public answer, JSON or HTML; its type is named only by the source table."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.api.test_publication import approve
from tests.api.test_secrets_crawl import crawl
from tests.api.world import World
from tests.records import run

SPACE_RUNS = [f"space-run-{i}" for i in range(3)]


def test_a_project_of_a_type_not_started_is_in_no_public_answer(
    world: World, public: TestClient[Any]
) -> None:
    world.ingest(
        [
            *(run(f"repo-run-{i}", "a-repo", "agent-a", "100") for i in range(3)),
            *(
                run(
                    run_id,
                    "a-space-xq",
                    "agent-a",
                    "100",
                    source_type="huggingface_space",
                    status="invalid",
                    invalid_reason="the harness could not read the report",
                )
                for run_id in SPACE_RUNS
            ),
        ]
    )
    assert world.project("a-space-xq").attempts  # the operator sees them
    approve(world)
    for path in ("/projects/a-space-xq", *(f"/runs/{r}" for r in SPACE_RUNS)):
        assert public.get(path).status_code == 404, path
    answers = crawl(public, ["repo-run-0", *SPACE_RUNS])
    assert "/projects/a-repo" in answers  # the crawl reaches the projects that are public
    for path, answer in answers.items():
        if path.startswith(tuple(f"/runs/{r}" for r in SPACE_RUNS)):
            continue  # asked for by name above: 404 each, naming only what was asked
        assert "a-space-xq" not in answer, path
        assert not any(r in answer for r in SPACE_RUNS), path
        if "huggingface_space" in answer or "Hugging Face space" in answer:
            assert path.startswith(("/methodology", "/ (json)", "/?")) or path == "/", path
