"""Section 16 from v1.4 end to end (issue 28, item 6), on SQLite and PostgreSQL: run records
ingested with the recordings tests write; the finding recorded with the run, the score it gives,
the run's document and page saying why a claim counts as tier3_none, a record ingested again
recording nothing."""

from __future__ import annotations

import html
import json
from typing import Any

from litestar.testing import TestClient

from tests.api.test_evidence import Evidence, client, evidence

__all__ = ["client", "evidence"]
from tests.domain.test_verification import FFMPEG, PROBES

HTML = {"Accept": "text/html"}
LOG = b"$ make\nok\n"


def recording(*outputs: str) -> bytes:
    lines = [json.dumps({"version": 2, "width": 80, "height": 24})]
    lines += [json.dumps([0.1 * i, "o", text]) for i, text in enumerate(outputs)]
    return ("\n".join(lines) + "\n").encode()


def claimed(
    evidence: Evidence, run_id: str, verified_how: str, cast: bytes, edition: str
) -> dict[str, Any]:
    record = evidence.run(run_id, cast, LOG, run={"edition": edition})
    record["report"]["verified_how"] = verified_how
    return record


SEED_PROBES = (
    "ffprobe -show_streams",
    "file",
    "a byte count (wc -c)",
    "a header read (xxd)",
    "the file's existence (ls)",
)
CASES = {
    # run id: (verified_how, what the recording shows); scored on v1.4 and on v1.3
    **{
        f"probe-{i}": (how, how.replace(" -> ", "\r\n"))
        for i, (how, _) in enumerate(PROBES[form] for form in SEED_PROBES)
    },
    "decoded": (f"{FFMPEG} -> no errors", f"$ {FFMPEG}\r\n$ "),
    "absent": (f"{FFMPEG} -> no errors", "$ ffprobe -show_streams out.mp4\r\n1 stream\r\n"),
}
EXPECTED_14 = {
    **{f"probe-{i}": ("fail", 80.0) for i in range(5)},
    "decoded": ("pass_full", 100.0),
    "absent": ("fail", 80.0),
}


def test_probes_and_a_decoding_absent_from_the_recording_score_as_section_16_says(
    evidence: Evidence, client: TestClient[Any]
) -> None:
    records = [
        claimed(evidence, f"{run_id}-{edition}", how, recording(f"$ {shown}\r\n"), edition)
        for run_id, (how, shown) in CASES.items()
        for edition in ("1.4", "1.3")
    ]
    evidence.write_and_ingest(records)
    got, pages = {}, {}
    for run_id in CASES:
        for edition in ("1.4", "1.3"):
            document = client.get(f"/runs/{run_id}-{edition}").json()
            got[run_id, edition] = (document["outcome"], document["score"])
            pages[run_id, edition] = (
                document["verification_note"],
                html.unescape(client.get(f"/runs/{run_id}-{edition}", headers=HTML).text),
            )
    expected = {(r, "1.4"): e for r, e in EXPECTED_14.items()}
    expected |= {(r, "1.3"): ("pass_full", 100.0) for r in CASES}
    assert got == expected
    for (run_id, edition), (note, page) in pages.items():
        counts = expected[run_id, edition][0] == "pass_full"
        assert (note is None) == counts, (run_id, edition, note)
        assert ('id="verification-note"' in page) != counts, (run_id, edition)
        if note is not None:
            assert "tier3_none (section 16, from v1.4)" in page, (run_id, edition)
    assert "names a probe (ffprobe)" in pages["probe-0", "1.4"][0]
    assert "not in the run's recording" in pages["absent", "1.4"][1]

    recorded = [evidence.events(f"{r}-{e}") for r in CASES for e in ("1.4", "1.3")]
    evidence.write_and_ingest(records)  # the same records again: nothing more recorded
    assert [evidence.events(f"{r}-{e}") for r in CASES for e in ("1.4", "1.3")] == recorded
    (run,) = [e for e in evidence.events("absent-1.4") if e["type"] == "RunRecorded"]
    assert run["verification"] == {
        "decoding": True,
        "in_recording": False,
        "reason": pages["absent", "1.4"][0],
    }
