"""Evidence throughput (section 17): a 200 MB recording derived into its served copy (every
transform, every hash), beside single-pass regex scans of the same bytes; and the memory it
takes, which must not grow with the file.

    python scripts/bench_evidence.py [--megabytes 200]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import re2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import chunks
from domain.evidence import redaction
from domain.evidence.pipeline import Derivation, section_17
from scripts.bench_floors import EVIDENCE, verdict

MODEL_KEY = "sk-proj-" + "".join(random.Random(1).choices("abcdefghijkLMNOP0123456789", k=64))
WORDS = [
    *("compiling", "module", "error", "warning", "npm", "install", "pip", "build", "test"),
    *("passed", "failed", "collected", "items", "src", "tests", "docs", "README", "setup.py"),
    *("Cargo.toml", "target", "debug", "release", "linking", "running"),
]


def write_recording(path: Path, megabytes: int) -> int:
    """A build session's recording: colour on a third of the lines, a banner, and now and then
    a secret (the run's key split across two events, a token, a private key)."""
    rng = random.Random(17)
    size, clock, n = 0, 0.0, 0
    with path.open("wb") as out:
        out.write(b'{"version": 2, "width": 120, "height": 40}\n')
        out.write(b'[0.1, "o", "Welcome to ToolX v2.3.1\\r\\n"]\n')
        while size < megabytes * 1_000_000:
            n += 1
            clock += rng.random() * 0.05
            text = " ".join(rng.choices(WORDS, k=rng.randint(3, 30)))
            if n % 3 == 0:
                text = f"\x1b[3{n % 7}m{text}\x1b[0m"
            if n % 20_000 == 0:
                text += f" OPENAI_API_KEY={MODEL_KEY[:20]}"
            elif n % 20_000 == 1:
                text = MODEL_KEY[20:] + " " + text
            elif n % 50_000 == 7:
                text += " ghp_" + "".join(rng.choices(WORDS[0] + "XYZ0123456789", k=36))
            end = "" if n % 20_000 == 0 else "\r\n"  # the key goes on in the next event
            line = f'[{clock:.6f}, "o", {json.dumps(text + end)}]\n'.encode()
            out.write(line)
            size += len(line)
    return path.stat().st_size


class Timed(NamedTuple):
    wall: float
    cpu: float
    """This process's CPU seconds: on a shared machine, less of what other work takes."""


def timed(work: Callable[[], object]) -> Timed:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return Timed(time.perf_counter() - wall, time.process_time() - cpu)


def scan(pattern: Callable[[bytes], object], path: Path) -> Timed:
    """One pass of a compiled pattern's finditer over the file, chunk by chunk."""

    def run() -> None:
        for chunk in chunks(path):
            for _ in pattern(chunk):  # type: ignore[attr-defined]
                pass

    return timed(run)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.cast"
        size = write_recording(path, args.megabytes)
        mb = size / 1e6
        union = "|".join(f"(?:{p})" for p in redaction.PATTERNS.values())
        re2_pass = scan(re2.compile(union.encode()).finditer, path)
        re_pass = scan(re.compile(union.encode()).finditer, path)
        before = peak_rss_mb()
        derivation = Derivation(section_17([MODEL_KEY], [r"^Welcome to ToolX v\d+.*$"]))
        served = 0

        def derive() -> None:
            nonlocal served
            served = sum(len(piece) for piece in derivation.cast(chunks(path)))

        ours = timed(derive)
        growth = peak_rss_mb() - before
    counts = {a.transform: a.counts for a in derivation.applied()}
    print(f"# Evidence derivation, {mb:,.0f} MB recording ({platform.python_version()})")
    print(f"served {served:,} bytes; counts {counts}")
    print("| work | MB/s | ratio to it | MB/s (CPU time) | ratio to it (CPU time) | floor |")
    print("|---|---:|---:|---:|---:|---|")
    print(
        f"| served copy (3 transforms, 4 SHA-256) | {mb / ours.wall:,.1f} | "
        f"| {mb / ours.cpu:,.1f} | | |"
    )
    for name, base, floor in [("RE2", re2_pass, EVIDENCE), ("Python re", re_pass, None)]:
        ratio = base.wall / ours.wall
        print(
            f"| baseline: {name} single pass, same patterns | {mb / base.wall:,.1f} | {ratio:.2f} "
            f"| {mb / base.cpu:,.1f} | {base.cpu / ours.cpu:.2f} | {verdict(floor, ratio)} |"
        )
    print(f"peak memory growth during the derivation: {growth:,.0f} MB")


if __name__ == "__main__":
    main()
