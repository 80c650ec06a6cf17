"""A large recording received in bounded memory (issue 16): a recording of `--megabytes` (2,000
by default: 2 GB) received through the evidence intake into the artifact store (stored
redacted, derived into its served copy), and a hostile one of the same size that is a single
line (not a recording: stored as a log and withheld). Each is received in a process of its own,
whose peak memory growth is reported: it must not grow with the file.

    python scripts/bench_large_recording.py [--megabytes 2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.artifacts import FileArtifactStore
from api.services.evidence import EvidenceIntake
from scripts.bench_evidence import MODEL_KEY, peak_rss_mb, write_recording

SHAPES = ("recording", "one-line")


def write_one_line(path: Path, megabytes: int) -> int:
    """A header, then one event whose output never ends: no newline in `megabytes`."""
    block = b"x" * 1_000_000
    with path.open("wb") as out:
        out.write(b'{"version": 2, "width": 80, "height": 24}\n[0.5, "o", "')
        for _ in range(megabytes):
            out.write(block)
    return path.stat().st_size


def receive(path: Path, store: Path) -> dict[str, object]:
    """The file received as a run's recording; what was stored and the memory it took."""
    before = peak_rss_mb()
    start = time.perf_counter()
    intake = EvidenceIntake(FileArtifactStore(store), lambda _: [r"^Welcome to ToolX v\d+.*$"])
    received = intake.derive({"cast": path}, "h", MODEL_KEY)["cast"]
    return {
        "bytes": received.received.arrived.bytes,
        "seconds": round(time.perf_counter() - start, 2),
        "withheld": received.withheld,
        "peak_growth_mb": round(peak_rss_mb() - before, 1),
    }


def measured(shape: str, megabytes: int, folder: Path) -> dict[str, object]:
    """One shape written, then received in a child process (its own peak memory)."""
    path = folder / f"{shape}.cast"
    (write_recording if shape == "recording" else write_one_line)(path, megabytes)
    child = subprocess.run(
        [sys.executable, __file__, "--receive", str(path), "--store", str(folder / "store")],
        capture_output=True,
        text=True,
        check=True,
    )
    path.unlink()
    return {"shape": shape, **json.loads(child.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=2_000)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--receive", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.receive:
        print(json.dumps(receive(args.receive, args.store)))
        return
    with tempfile.TemporaryDirectory() as folder:
        results = [measured(shape, args.megabytes, Path(folder)) for shape in SHAPES]
    if args.json:
        print(json.dumps(results))
        return
    print(f"# A {args.megabytes:,} MB recording received in bounded memory")
    print("| shape | bytes | seconds | MB/s | peak memory growth (MB) | withheld |")
    print("|---|---:|---:|---:|---:|---|")
    for r in results:
        rate = int(r["bytes"]) / 1e6 / float(r["seconds"])  # type: ignore[call-overload]
        print(
            f"| {r['shape']} | {r['bytes']:,} | {r['seconds']} | {rate:,.1f} "
            f"| {r['peak_growth_mb']} | {r['withheld'] or 'no'} |"
        )


if __name__ == "__main__":
    main()
