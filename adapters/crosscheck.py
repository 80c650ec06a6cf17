"""SI-IQ section 8's cross-check over HTTP: an OpenAI-compatible chat-completions endpoint
(`ARGUSIC_CROSSCHECK_URL`, `ARGUSIC_CROSSCHECK_MODEL`, `ARGUSIC_CROSSCHECK_FAMILY`,
`ARGUSIC_CROSSCHECK_TOKEN`), and its
stand-in for tests and the demo on 127.0.0.1, which confirms a number only when the quoted row
carries it. The prompt and the reading of answers are the domain's (`domain.siiq.crosscheck`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import httpx
import msgspec

from domain.siiq.crosscheck import Claim, CrossCheckUnavailable, messages, row_carries


class ChatCrossChecker:
    """One HTTP client for an update's checks; the token goes only in the Authorization header."""

    def __init__(
        self, url: str, model: str, token: str, family: str = "", timeout: float = 60.0
    ) -> None:
        self.name = model
        self.family = family
        self.endpoint = url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.Client(timeout=timeout, headers=headers)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> ChatCrossChecker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.client.close()

    def ask(self, claims: Sequence[Claim]) -> list[str]:
        """The checker's answer to each claim, in order."""
        return [self._ask(claim) for claim in claims]

    def _ask(self, claim: Claim) -> str:
        body = {"model": self.name, "temperature": 0, "messages": messages(claim)}
        try:
            response = self.client.post(self.endpoint, json=body)
        except httpx.HTTPError as e:
            raise CrossCheckUnavailable(f"the cross-check service did not answer: {e}") from e
        if response.status_code != 200:
            raise CrossCheckUnavailable(f"the cross-check service answered {response.status_code}")
        try:
            return str(response.json()["choices"][0]["message"]["content"])
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise CrossCheckUnavailable(
                "the cross-check service's answer is not a chat completion"
            ) from e


class CrossCheckStandIn(ThreadingHTTPServer):
    """The stand-in checker: `POST /v1/chat/completions` answers the domain's verdict for the
    quoted row; `url` ends with `/v1`. `down` makes every call answer 503; `refuse` names
    model identities it answers "no" for (a checker that disagrees, for tests)."""

    daemon_threads = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.down = False
        self.refuse: set[str] = set()
        self.calls = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def start(self) -> CrossCheckStandIn:
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once on a kept-alive connection
    server: CrossCheckStandIn

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": "not found"}})
        if self.server.down:
            return self._send(503, {"error": {"message": "unavailable"}})
        self.server.calls += 1
        try:
            request = json.loads(body)
            quoted = json.loads(request["messages"][-1]["content"])
            claim = Claim(
                model=quoted["claim"]["model"],
                benchmark=quoted["claim"]["benchmark"],
                number=quoted["claim"]["number"],
                identity=quoted["claim"]["identity"],
                columns=quoted["columns"],
                cells=quoted["row"],
            )
        except (ValueError, KeyError, TypeError, IndexError, msgspec.ValidationError):
            return self._send(400, {"error": {"message": "not a cross-check request"}})
        verdict = row_carries(claim)
        if claim.identity in self.server.refuse:
            verdict["number"] = False
        content = json.dumps(verdict, sort_keys=True)
        return self._send(
            200,
            {
                "id": "stand-in",
                "object": "chat.completion",
                "model": request.get("model", "stand-in"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            },
        )

    def _send(self, status: int, document: object) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return
