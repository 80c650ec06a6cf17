"""A SeaweedFS S3 gateway of a test's own (`weed s3`), in front of the test SeaweedFS's filer
(scripts/ensure-seaweedfs.sh), on free ports of 127.0.0.1: a test may kill it and start it
again without touching the gateway the other tests share."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx

WEED = Path(sys.executable).parent / "weed"
FILER = "127.0.0.1:18888"
"""The test SeaweedFS's filer (scripts/ensure-seaweedfs.sh), behind every gateway."""
FLAGS = (f"-filer={FILER}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-metricsPort=0")
FLAGS += ("-port.iceberg=0", "-port.lance=0")  # neither of those listeners


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Gateway:
    """`weed s3` with the test credentials, started, killed (SIGKILL) and started again."""

    def __init__(self, folder: Path, credentials: dict[str, str]) -> None:
        self.port, self.grpc = free_port(), free_port()
        self.config = folder / "s3.json"
        keys = {"accessKey": credentials["AWS_ACCESS_KEY_ID"]}
        keys["secretKey"] = credentials["AWS_SECRET_ACCESS_KEY"]
        identity = {"name": "test", "credentials": [keys], "actions": ["Admin", "Read", "Write"]}
        self.config.write_text(json.dumps({"identities": [identity]}))
        self.log = folder / "gateway.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.output: IO[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.output = self.log.open("ab")
        ports = (f"-port={self.port}", f"-port.grpc={self.grpc}")
        self.process = subprocess.Popen(
            [str(WEED), "s3", *FLAGS, *ports, f"-config={self.config}"],
            stdin=subprocess.DEVNULL,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.endpoint}/status", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"the gateway did not come up: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL, as a machine that dies: no request in flight is finished."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        if self.output is not None:
            self.output.close()
