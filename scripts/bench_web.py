"""Pages against the same server's /healthz: requests per second and the 99th percentile of
the leaderboard page, each as a ratio to /healthz measured in the same run on the same server
(the demo ledger, SQLite, one uvicorn worker on 127.0.0.1); and the run page's weight, every
byte a browser fetches for it (the page, the stylesheets, the player, the recording).

    python scripts/bench_web.py [--seconds 5] [--clients 4]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from html.parser import HTMLParser
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import FileArtifactStore
from adapters.banners import banner_patterns
from api.services.demo import load_demo
from api.wiring import Settings, init
from tests.servers import free_port, stop, wait_for

ROOT = Path(__file__).resolve().parents[1]
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
MAX_REQUESTS = 50_000
"""A phase ends after its seconds or this many requests, whichever comes first."""


def load(origin: str, path: str, headers: dict[str, str], seconds: float, clients: int) -> dict:
    """`clients` keep-alive connections asking for `path` back to back for `seconds`."""
    latencies: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        mine = []
        with httpx.Client(base_url=origin, headers=headers, timeout=30) as http:
            while time.perf_counter() < deadline and len(mine) * clients < MAX_REQUESTS:
                start = time.perf_counter()
                answer = http.get(path)
                mine.append(time.perf_counter() - start)
                assert answer.status_code == 200, (path, answer.status_code)
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "path": path,
        "requests": len(latencies),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
    }


class Fetched(HTMLParser):
    """What a browser fetches for a page: stylesheets, scripts, the recording."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and values.get("rel") == "stylesheet" and values.get("href"):
            self.urls.append(str(values["href"]))
        if tag == "script" and values.get("src"):
            self.urls.append(str(values["src"]))
        if values.get("data-cast"):
            self.urls.append(str(values["data-cast"]))


def page_weight(origin: str, path: str, encoding: str) -> dict:
    """Bytes on the wire (bodies as transferred, headers left out) for a page and what it loads."""
    with httpx.Client(base_url=origin, headers={"Accept-Encoding": encoding}) as http:
        first = http.get(path, headers=BROWSER)
        parser = Fetched()
        parser.feed(first.text)
        files = {path: first}
        files |= {url: http.get(url) for url in parser.urls}
    sizes = {url: answer.num_bytes_downloaded for url, answer in files.items()}
    return {"encoding": encoding, "total_bytes": sum(sizes.values()), "files": sizes}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(f"sqlite:///{folder}/ledger.db", Path(folder) / "home", "json")
        book, _ = init(settings)
        store = FileArtifactStore(settings.home / "artifacts")
        load_demo(
            ROOT / "scripts" / "demo",
            ledger=book,
            store=store,
            banners=banner_patterns,
            home=settings.home,
        )
        book.close()
        port = free_port()
        origin = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "ARGUSIC_DATABASE_URL": settings.database_url,
            "ARGUSIC_HOME": str(settings.home),
            "ARGUSIC_LOG_FORMAT": "json",
        }
        server = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "argusic"), "serve", "--port", str(port)],
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(f"{origin}/healthz", server)
            board = "/leaderboard?cycle=2026-09"
            for path, headers in (("/healthz", {}), (board, BROWSER), (board, {})):
                load(origin, path, headers, 1.0, args.clients)  # warm up
            healthz = load(origin, "/healthz", {}, args.seconds, args.clients)
            page = load(origin, board, BROWSER, args.seconds, args.clients)
            document = load(origin, board, {}, args.seconds, args.clients)
            weights = [page_weight(origin, "/runs/demo-001", e) for e in ("identity", "gzip")]
        finally:
            stop(server)
    print(
        json.dumps(
            {
                "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                "load_average": os.getloadavg(),
                "clients": args.clients,
                "healthz": healthz,
                "leaderboard_page": page,
                "leaderboard_json": document,
                "page_to_healthz": {
                    "requests_per_second": round(
                        page["requests_per_second"] / healthz["requests_per_second"], 3
                    ),
                    "p99": round(page["p99_ms"] / healthz["p99_ms"], 2),
                },
                "run_page_weight": weights,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
