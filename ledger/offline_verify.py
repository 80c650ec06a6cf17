"""Standalone verifier of what the ledger publishes, for auditors.

Needs only the Python standard library, `cryptography`, and its two neighbours
`ledger/merkle.py` and `ledger/note.py` (copy the three files). No database.

    python -m ledger.offline_verify --key VERIFIER_KEY --checkpoint checkpoint.txt \\
        [--export events.jsonl] [--inclusion proof.json] \\
        [--consistency proof.json [--old-checkpoint old.txt]]
    python -m ledger.offline_verify --key VERIFIER_KEY --trace trace.json
    python -m ledger.offline_verify bundle DIR --key VERIFIER_KEY   (needs the project's domain)

A checkpoint file is a signed note, or the JSON that `argusic ledger checkpoint --json` prints.
Prints one JSON document; exits 0 when everything checks out, 3 when something does not,
2 on a usage error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ledger.merkle import (
    ProofError,
    extend,
    leaf_hash,
    root_from_frontier,
    verify_consistency,
    verify_inclusion,
)
from ledger.note import CheckpointBody, NoteError, Verifier, open_checkpoint


class Failed(Exception):
    """The material does not verify."""


def read_checkpoint(path: Path, verifier: Verifier) -> CheckpointBody:
    text = path.read_text()
    if text.lstrip().startswith("{"):
        text = json.loads(text)["note"]
    return open_checkpoint(text, verifier)


def check_export(
    lines: Iterable[str], sizes: Iterable[int], positions: Iterable[int]
) -> tuple[int, dict[int, bytes], dict[int, bytes]]:
    """Check every line of an export; return its size, its roots at `sizes` and the leaf
    hashes of the events at `positions`."""
    frontier: list[bytes] = []
    size = 0
    roots: dict[int, bytes] = {}
    leaves: dict[int, bytes] = {}
    wanted, wanted_leaves = set(sizes), set(positions)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        entry = export_entry(number, line)
        canonical = entry["canonical"].encode()
        if entry["position"] != size + 1:
            raise Failed(f"line {number}: position {entry['position']}, expected {size + 1}")
        if hashlib.sha256(canonical).hexdigest() != entry["hash"]:
            raise Failed(f"event {entry['position']}: hash does not match its canonical bytes")
        envelope = json.loads(canonical)
        said = (
            envelope["stream"],
            envelope["version"],
            envelope["event"]["type"],
            envelope["recorded_at"],
        )
        if said != (entry["stream"], entry["version"], entry["type"], entry["recorded_at"]):
            raise Failed(f"event {entry['position']}: line fields differ from its canonical bytes")
        leaf = leaf_hash(canonical)
        if entry["position"] in wanted_leaves:
            leaves[entry["position"]] = leaf
        size, frontier, _ = extend(size, frontier, [leaf], keep_from_level=64)
        if size in wanted:
            roots[size] = root_from_frontier(frontier)
    return size, roots, leaves


def export_entry(number: int, line: str) -> Any:
    """One line of an export or a bundle; a line cut short (every line ends with a newline)
    means the file was truncated."""
    if not line.endswith("\n"):
        raise Failed(f"line {number} is cut short: the file is truncated")
    try:
        return json.loads(line)
    except ValueError as e:
        raise Failed(f"line {number} is not a JSON line ({e}): the file is damaged") from e


def check_trace(trace: dict[str, Any], verifier: Verifier) -> list[str]:
    """A trace (`argusic trace --json`): its checkpoint is signed by the key, and each of its
    events is the bytes it shows, included in that checkpoint's tree."""
    head = open_checkpoint(trace["checkpoint"]["note"], verifier)
    for event in trace["events"]:
        canonical = event["canonical"].encode()
        if hashlib.sha256(canonical).hexdigest() != event["hash"]:
            raise Failed(f"event {event['position']}: hash does not match its canonical bytes")
        leaf = leaf_hash(canonical)
        if leaf.hex() != event["leaf_hash"]:
            raise Failed(f"event {event['position']}: leaf hash does not match its bytes")
        path = [bytes.fromhex(h) for h in event["path"]]
        verify_inclusion(event["position"] - 1, head.size, leaf, path, head.root)
    return [f"trace of {trace['run_id']}: {len(trace['events'])} events in checkpoint {head.size}"]


def run(args: argparse.Namespace) -> list[str]:
    """Check everything given; return what was checked, or raise Failed."""
    verifier = Verifier.parse(args.key)
    if args.trace:
        return check_trace(json.loads(args.trace.read_text()), verifier)
    head = read_checkpoint(args.checkpoint, verifier)
    checked = [f"checkpoint: size {head.size} signed by {verifier.name}"]
    old = read_checkpoint(args.old_checkpoint, verifier) if args.old_checkpoint else None
    consistency = json.loads(args.consistency.read_text()) if args.consistency else None
    inclusion = json.loads(args.inclusion.read_text()) if args.inclusion else None
    leaves: dict[int, bytes] = {}
    roots = {head.size: head.root}
    if args.export:
        sizes = [head.size] + ([consistency["first"]] if consistency else [])
        positions = [inclusion["position"]] if inclusion else []
        with args.export.open() as lines:
            size, export_roots, leaves = check_export(lines, sizes, positions)
        if size < head.size:
            raise Failed(f"export holds {size} events, the checkpoint {head.size}: it is truncated")
        if export_roots.get(head.size) != head.root:
            raise Failed(f"the export's first {head.size} events do not give the checkpoint root")
        roots.update(export_roots)
        checked.append(f"export: {size} events, hashes and root of the first {head.size}")
    if old:
        roots.setdefault(old.size, old.root)
        if roots[old.size] != old.root:
            raise Failed(f"old checkpoint root of size {old.size} differs from the export")
        checked.append(f"old checkpoint: size {old.size}")
    if inclusion:
        check_inclusion(inclusion, head, leaves)
        checked.append(f"inclusion: event {inclusion['position']} in size {head.size}")
    if consistency:
        check_consistency(consistency, head, roots)
        checked.append(f"consistency: size {consistency['first']} to {consistency['second']}")
    return checked


def check_inclusion(
    proof: dict[str, object], head: CheckpointBody, leaves: dict[int, bytes]
) -> None:
    position, size = int(proof["position"]), int(proof["size"])  # type: ignore[call-overload]
    leaf = bytes.fromhex(str(proof["leaf_hash"]))
    if size != head.size:
        raise Failed(f"inclusion proof is for size {size}, the checkpoint has {head.size}")
    if position in leaves and leaves[position] != leaf:
        raise Failed(f"inclusion proof leaf differs from event {position} of the export")
    path = [bytes.fromhex(h) for h in proof["path"]]  # type: ignore[attr-defined]
    verify_inclusion(position - 1, size, leaf, path, head.root)


def check_consistency(
    proof: dict[str, object], head: CheckpointBody, roots: dict[int, bytes]
) -> None:
    first, second = int(proof["first"]), int(proof["second"])  # type: ignore[call-overload]
    if second != head.size:
        raise Failed(f"consistency proof ends at size {second}, the checkpoint has {head.size}")
    if first not in roots:
        raise Failed(f"no trusted root of size {first}: give --old-checkpoint or --export")
    path = [bytes.fromhex(h) for h in proof["path"]]  # type: ignore[attr-defined]
    verify_consistency(first, second, roots[first], head.root, path)


def bundle_main(argv: Sequence[str]) -> int:
    """`bundle DIR --key KEY`: an audit bundle (`argusic audit bundle`), checked by
    `ledger.offline_bundle`, imported here: a bundle's figure is recomputed with the project's
    rules, while the rest of this verifier needs only its two neighbours."""
    from ledger import offline_bundle  # noqa: PLC0415

    return offline_bundle.main(argv)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["bundle"]:
        return bundle_main(arguments[1:])
    parser = argparse.ArgumentParser(
        prog="python -m ledger.offline_verify",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--key", required=True, help="the ledger's verifier key string")
    parser.add_argument("--checkpoint", type=Path)
    parser.add_argument("--trace", type=Path, help="a trace from `argusic trace --json`")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--inclusion", type=Path)
    parser.add_argument("--consistency", type=Path)
    parser.add_argument("--old-checkpoint", type=Path)
    args = parser.parse_args(arguments)
    if not (args.trace or args.checkpoint):
        parser.error("give --checkpoint or --trace")
    try:
        checked = run(args)
    except OSError as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 2
    except (Failed, ProofError, NoteError, ValueError, KeyError) as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 3
    print(json.dumps({"ok": True, "checked": checked}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
