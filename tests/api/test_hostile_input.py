"""Hostile input at the outer edges (issue 16): a real server on 127.0.0.1 refuses request
targets and bodies over their limits (414, 413, before routing), bad values and deep JSON
(400), each with a problem document, and puts its security headers on every answer with no
server banner; the CLI names a non-UTF-8 file in its JSON; a large recording, and one that is
a single endless line, are received in bounded memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.http.headers import SECURITY_HEADERS
from api.http.limits import MAX_BODY_BYTES, MAX_TARGET_BYTES
from api.services.json_input import TOO_DEEP
from api.wiring import Settings
from ledger.ledger import Ledger
from tests.conftest import append_editions, argusic
from tests.publishing import publish
from tests.servers import serving

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(ledger: Ledger, settings: Settings, cli_env: dict[str, str]) -> Iterator[str]:
    append_editions(ledger, 0, 3)
    publish(ledger, settings.home)  # the 3 events are public: proofs of them answer
    with serving(cli_env) as address:
        yield address


def problem(answer: httpx.Response, status: int) -> str:
    """The answer's detail, once it is the problem document of `status`."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["status_code"] == status
    return str(body["detail"])


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_request_target_over_its_limit_is_414_on_every_path(server: str) -> None:
    long = "x" * MAX_TARGET_BYTES
    for path in ("/healthz", "/no/such/path", "/runs/r1"):
        detail = problem(httpx.get(f"{server}{path}", params={"q": long}), 414)
        assert detail.endswith(f"bytes; at most {MAX_TARGET_BYTES:,} are read")
    assert httpx.get(f"{server}/healthz", params={"q": "x" * 3_000}).status_code == 200


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_request_body_over_its_limit_is_413_and_deep_json_is_400(server: str) -> None:
    body = b"{" + b" " * MAX_BODY_BYTES + b"}"
    for path in ("/operator/actions", "/healthz"):
        detail = problem(httpx.post(f"{server}{path}", content=body), 413)
        assert detail == (
            f"the request body is {len(body)} bytes; at most {MAX_BODY_BYTES:,} are read"
        )
    deep = b'{"action": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    headers = {"content-type": "application/json"}
    answer = httpx.post(f"{server}/operator/actions", content=deep, headers=headers)
    assert problem(answer, 400) == f"the request body is {TOO_DEEP}"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("path", "params", "named"),
    [
        ("/leaderboard", {"cycle": "2026-09", "as_of": "-1"}, "as_of"),
        ("/leaderboard", {"cycle": "2026-09", "as_of": str(2**63)}, "as_of"),
        ("/ledger/proof/inclusion", {"position": "one"}, "position"),
        ("/ledger/checkpoint", {"size": "1.5"}, "size"),
        ("/healthz", {"format": "xml"}, "format"),
        ("/hardware/estimate", {"memory_gb": "nan"}, "memory_gb"),
        # litestar alone reads these as integers; the document says an integer from 0
        ("/ledger/proof/inclusion", {"position": "1.0"}, "position"),
        ("/leaderboard", {"cycle": "2026-09", "as_of": "-0"}, "as_of"),
        ("/ledger/checkpoint", {"size": "\uff15"}, "size"),  # a fullwidth 5
        ("/ledger/checkpoint", {"size": ""}, "size"),
    ],
)
def test_bad_values_are_400_naming_the_parameter(
    server: str, path: str, params: dict[str, str], named: str
) -> None:
    answer = httpx.get(f"{server}{path}", params=params)
    assert named in problem(answer, 400) + json.dumps(answer.json().get("extra"))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("target", "refusal"),
    [
        ("/ledger/proof/inclusion?position=1&position=2", "'position' is given 2 times"),
        ("/status.json?as_of=1&format=json&as_of=0", "'as_of' is given 2 times"),
        ("/no/such/path?q=1&r=2&q=3&q=4", "'q' is given 3 times"),
    ],
)
def test_a_query_parameter_given_twice_is_400_naming_it_not_read_as_the_last(
    server: str, target: str, refusal: str
) -> None:
    detail = problem(httpx.get(f"{server}{target}"), 400)
    assert detail == f"the query parameter {refusal}; give each parameter once"
    once = httpx.get(f"{server}/ledger/proof/inclusion?position=1&size=3")
    assert once.status_code == 200, once.text
    assert httpx.get(f"{server}/healthz?&&").status_code == 200  # separators alone name nothing


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_every_answer_carries_the_security_headers_and_no_server_banner(server: str) -> None:
    html = {"accept": "text/html"}
    answers = [
        httpx.get(f"{server}/methodology", headers=html),  # a page
        httpx.get(f"{server}/healthz"),  # a document
        httpx.get(f"{server}/runs/nothing", headers=html),  # an error page
        httpx.get(f"{server}/no/such/path"),  # an error outside every route
        httpx.get(f"{server}/static/site/site.css"),  # a file
        httpx.get(f"{server}/schema"),  # the OpenAPI page
        httpx.get(f"{server}/healthz", params={"q": "x" * MAX_TARGET_BYTES}),  # refused early
        httpx.delete(f"{server}/healthz"),  # a method not allowed
    ]
    assert [a.status_code for a in answers] == [200, 200, 404, 404, 200, 200, 414, 405]
    for answer in answers:
        assert "server" not in answer.headers, answer.url
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers.get(name) == value, (answer.url, name)
    assert set(answers[-1].headers["allow"].split(", ")) == {"GET", "OPTIONS"}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_cli_names_a_non_utf8_file_in_its_json(
    ledger: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    folder = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9"))
    folder.mkdir()
    records = folder / "runs.jsonl"
    records.write_text('{"kind": "nothing"}\n')
    refused = argusic(cli_env, "ingest", str(records), "--json")
    assert refused.returncode == 1, refused.stderr
    (rejection,) = json.loads(refused.stdout)["rejections"]
    assert rejection["file"] == f"{tmp_path}/caf\\xe9/runs.jsonl"
    assert ledger.size() == 0


@pytest.mark.slow
def test_a_large_recording_and_an_endless_line_are_received_in_bounded_memory() -> None:
    """96 MB here (`make bench` receives 2 GB): each in a process of its own, whose peak memory
    grows by less than the file."""
    script = str(ROOT / "scripts" / "bench_large_recording.py")
    bench = subprocess.run(
        [sys.executable, script, "--megabytes", "96", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    recording, one_line = json.loads(bench.stdout)
    assert recording["bytes"] > 96_000_000
    assert recording["withheld"] is None
    assert one_line["withheld"] == (
        "the recording cannot be parsed: a line longer than 4,194,304 bytes"
    )
    for received in (recording, one_line):
        assert received["peak_growth_mb"] < 64, received
