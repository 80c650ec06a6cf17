"""SI-IQ's published files and pages (sections 8, 10 and 11): evidence rows as published with
their file's address and SHA-256, the history rescored with the parameters in force, the
status page showing holds, and the attributions and version on every file and page."""

from __future__ import annotations

import hashlib
import html
import json

from tests.api.siiq.conftest import ZIP, World

HTML = {"Accept": "text/html"}
EPOCH_ATTRIBUTION = "Epoch AI, ‘Capabilities & benchmarking’ (CC BY 4.0)"


def test_every_file_and_page_carries_its_attributions_and_version(world: World) -> None:
    world.hour()
    # A published value keeps the row and file it was published from.
    zip_sha = hashlib.sha256(world.server.files[ZIP].body).hexdigest()
    world.export.scores["GPT-5", "hle"] = 0.9
    world.serve_export()
    world.hour(25)
    lines = [json.loads(line) for line in world.get("/data/evidence.jsonl").splitlines()]
    assert len(lines) == 400
    gpt5 = next(x for x in lines if (x["model"], x["benchmark"]) == ("GPT-5", "gpqa_diamond"))
    assert gpt5["url"] == world.server.url(ZIP)
    assert gpt5["sha256"] == zip_sha
    assert gpt5["row"]["Model version"] == "GPT-5"
    assert list(gpt5["row"])[:2] == ["Model version", "Best score (across scorers)"]  # its order
    assert float(gpt5["row"]["Best score (across scorers)"]) == gpt5["value"]
    assert {x["attribution"] for x in lines} == {EPOCH_ATTRIBUTION}
    assert {x["version"] for x in lines} == {"1.0.0"}
    history = world.get("/data/history.json")
    assert [d["date"] for d in history["days"]] == ["2026-11-02"]
    assert history["version"] == history["calibration_version"] == "1.0.0"
    [day] = history["days"]
    assert len(day["inputs"]) == 400
    scores = {s["model"]: s["si_iq"] for s in day["scores"]}
    assert scores == {m["slug"]: m["si_iq"] for m in world.index()["models"]}
    assert [a["text"] for a in history["attributions"]] == [EPOCH_ATTRIBUTION]
    assert [a["text"] for a in world.index()["attributions"]] == [EPOCH_ATTRIBUTION]
    status = world.status()
    assert status["method_version"] == "1.0.0"
    assert EPOCH_ATTRIBUTION in {a["text"] for a in status["attributions"]}
    assert [(h["model"], h["benchmark"]) for h in status["holds"]] == [("GPT-5", "hle")]
    page = world.client.get("/status", headers=HTML).text
    assert "GPT-5, hle: 0.9 held since" in page
    slug = world.index()["models"][0]["slug"]
    model = world.client.get(f"/siiq/models/{slug}", headers=HTML).text
    assert html.escape(EPOCH_ATTRIBUTION) in model
    assert "Method version 1.0.0" in model
    assert html.escape(EPOCH_ATTRIBUTION) in world.client.get("/siiq", headers=HTML).text
    assert html.escape(EPOCH_ATTRIBUTION) in world.client.get("/", headers=HTML).text
