"""A check schemathesis runs on every response of the fuzz test (tests/api/test_fuzz.py):
every error is a problem document naming its status and saying what is wrong (a JSON object
for a client that takes JSON, its page for one that asked for HTML)."""

from __future__ import annotations

import json
from typing import Any

import schemathesis


@schemathesis.check
def problem_document(ctx: Any, response: Any, case: Any) -> None:
    if response.status_code < 400:
        return
    media = (response.headers.get("content-type") or [""])[0]
    if media.startswith("text/html"):
        assert f"<title>{response.status_code} |" in response.text, "an error page names its status"
        return
    assert media == "application/json", f"an error as {media!r}, not a problem document"
    body = json.loads(response.content)
    assert isinstance(body, dict), "a problem document is an object"
    assert body.get("status_code") == response.status_code, "its status_code is the status"
    detail = body.get("detail")
    assert isinstance(detail, str), "its detail is a sentence"
    assert detail.strip(), "its detail says what is wrong"
