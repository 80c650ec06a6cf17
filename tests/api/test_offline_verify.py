"""The standalone verifier, run the way an auditor runs it: three copied files, the
standard library and `cryptography`, no database."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cryptography
import pytest

from ledger.note import Signer
from tests.conftest import append_editions, argusic

ROOT = Path(__file__).resolve().parents[2]
FILES = ("merkle.py", "note.py", "offline_verify.py")


@pytest.fixture
def auditor(tmp_path: Path) -> Path:
    """A folder with only the verifier's files and `cryptography` (with its cffi backend)."""
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "__init__.py").touch()
    for name in FILES:
        shutil.copy(ROOT / "ledger" / name, tmp_path / "ledger" / name)
    site = tmp_path / "site"
    site.mkdir()
    packages = Path(cryptography.__file__).parents[1]
    for entry in [packages / "cryptography", *packages.glob("_cffi_backend*")]:
        (site / entry.name).symlink_to(entry)
    return tmp_path


def given(published: dict[str, str], *flags: str) -> list[str]:
    """The verifier's arguments: the key, then each named file of what was published."""
    files = {"old-checkpoint": "old"}
    return [
        "--key",
        published["key"],
        *(a for f in flags for a in (f"--{f}", published[files.get(f, f)])),
    ]


def offline(folder: Path, *args: str) -> tuple[int, dict[str, object]]:
    result = subprocess.run(
        [sys.executable, "-S", "-m", "ledger.offline_verify", *args],
        cwd=folder,
        env={"PYTHONPATH": f"{folder}:{folder / 'site'}"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout)


def tried_import(node: ast.Try) -> bool:
    """A `try` of imports only, whose failure is caught as ImportError."""
    caught = [h.type for h in node.handlers]
    return all(isinstance(n, ast.Import | ast.ImportFrom) for n in node.body) and any(
        isinstance(c, ast.Name) and c.id == "ImportError" for c in caught
    )


def test_the_verifier_imports_only_the_standard_library_and_cryptography() -> None:
    """Bundles excepted: they recompute figures with the project's rules, imported only by
    `bundle_main`, so the three copied files still verify exports, proofs and traces. So are
    imports tried with a way on if they fail (libsodium, used where it is installed)."""
    allowed = set(sys.stdlib_module_names) | {"cryptography", "ledger"}
    for name in FILES:
        tree = ast.parse((ROOT / "ledger" / name).read_text())
        bundles = [n for n in ast.walk(tree) if getattr(n, "name", "") == "bundle_main"]
        optional = [n for n in ast.walk(tree) if isinstance(n, ast.Try) and tried_import(n)]
        inside = {id(n) for b in [*bundles, *optional] for n in ast.walk(b)}
        for node in ast.walk(tree):
            if id(node) in inside:
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] in allowed, node.module
                if node.module.startswith("ledger"):
                    assert node.module in ("ledger.merkle", "ledger.note"), node.module
            elif isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] in allowed for a in node.names)


def test_the_bundle_verifier_needs_nothing_of_the_code_that_writes_bundles() -> None:
    """An auditor's bundle check loads the rules (`domain`) and the ledger's formats, never the
    services, projections or adapters that made the bundle, nor the verifier that dispatches to
    it (no cycle)."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, ledger.offline_bundle; print('\\n'.join(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.split()
    ours = {m for m in loaded if m.split(".")[0] in ("api", "projections", "adapters", "ledger")}
    assert not {m for m in ours if not m.startswith("ledger")}
    assert "ledger.offline_verify" not in ours
    assert {"ledger.offline_bundle", "ledger.heads_map", "ledger.merkle", "ledger.note"} <= ours


@pytest.fixture
def published(ledger, cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:  # type: ignore[no-untyped-def]
    for start in range(0, 37, 6):
        append_editions(ledger, start, 6)
    out = tmp_path / "published"
    out.mkdir()
    files = {
        "export": argusic(cli_env, "ledger", "export").stdout,
        "checkpoint": argusic(cli_env, "ledger", "checkpoint", "--json").stdout,
        "old": argusic(cli_env, "ledger", "checkpoint", "--size", "18", "--json").stdout,
        "inclusion": argusic(cli_env, "ledger", "proof", "inclusion", "11", "--json").stdout,
        "consistency": argusic(
            cli_env, "ledger", "proof", "consistency", "18", "42", "--json"
        ).stdout,
    }
    paths = {}
    for name, text in files.items():
        (out / name).write_text(text)
        paths[name] = str(out / name)
    paths["key"] = json.loads(files["checkpoint"])["public_key"]
    return paths


def test_an_export_its_checkpoint_and_proofs_verify_offline(
    auditor: Path, published: dict[str, str]
) -> None:
    code, result = offline(
        auditor,
        *given(published, "checkpoint", "export", "inclusion", "consistency", "old-checkpoint"),
    )
    assert (code, result["ok"]) == (0, True), result
    assert len(result["checked"]) == 5  # type: ignore[arg-type]


def test_a_forged_checkpoint_signature_is_rejected(
    auditor: Path, published: dict[str, str]
) -> None:
    document = json.loads(Path(published["checkpoint"]).read_text())
    head, _, signature_line = document["note"].rstrip("\n").rpartition("\n")
    name, encoded = signature_line.rsplit(" ", 1)
    forged_signature = encoded[:20] + ("A" if encoded[20] != "A" else "B") + encoded[21:]
    document["note"] = f"{head}\n{name} {forged_signature}\n"
    Path(published["checkpoint"]).write_text(json.dumps(document))
    code, result = offline(auditor, *given(published, "checkpoint"))
    assert (code, result["ok"]) == (3, False)
    assert "does not verify" in str(result["error"])


def test_a_checkpoint_signed_by_another_key_is_rejected(
    auditor: Path, published: dict[str, str]
) -> None:
    other = str(Signer.generate("argusic.local/ledger").verifier)
    code, result = offline(auditor, "--key", other, "--checkpoint", published["checkpoint"])
    assert code == 3
    assert "no signature by argusic.local/ledger" in str(result["error"])


def test_a_wrong_inclusion_proof_is_rejected(auditor: Path, published: dict[str, str]) -> None:
    proof = json.loads(Path(published["inclusion"]).read_text())
    proof["path"][2] = "00" * 32
    Path(published["inclusion"]).write_text(json.dumps(proof))
    code, result = offline(auditor, *given(published, "checkpoint", "inclusion"))
    assert (code, result["ok"]) == (3, False)


def test_an_inclusion_proof_for_another_event_is_rejected(
    auditor: Path, published: dict[str, str]
) -> None:
    proof = json.loads(Path(published["inclusion"]).read_text())
    proof["position"] = 12
    Path(published["inclusion"]).write_text(json.dumps(proof))
    code, _ = offline(auditor, *given(published, "checkpoint", "export", "inclusion"))
    assert code == 3


def test_a_doctored_export_is_rejected(auditor: Path, published: dict[str, str]) -> None:
    lines = Path(published["export"]).read_text().splitlines()
    entry = json.loads(lines[5])
    entry["canonical"] = entry["canonical"].replace("test edition", "test editiom")
    lines[5] = json.dumps(entry)
    Path(published["export"]).write_text("\n".join(lines) + "\n")
    code, result = offline(auditor, *given(published, "checkpoint", "export"))
    assert code == 3
    assert "event 6" in str(result["error"])


def test_a_trace_verifies_offline(auditor: Path, cli_env: dict[str, str], tmp_path: Path) -> None:
    argusic(cli_env, "init")
    assert argusic(cli_env, "demo").returncode == 0
    trace = argusic(cli_env, "trace", "demo-007", "--json").stdout
    (tmp_path / "trace.json").write_text(trace)
    key = json.loads(trace)["checkpoint"]["public_key"]
    code, result = offline(auditor, "--key", key, "--trace", str(tmp_path / "trace.json"))
    assert (code, result["ok"]) == (0, True), result
    document = json.loads(trace)
    types = Counter(e["type"] for e in document["events"])
    # its edition, its set's three runs, three transforms of its log and of its cast, and its
    # quoted final sentence and project description as pages show them (each run's evidence
    # events follow the run itself in the ledger, appended in the same batch)
    assert types == {"EditionDrafted": 1, "RunRecorded": 3, "EvidenceTransformed": 8}
    assert document["set"]["median"] == 100.0
    document["events"][1]["canonical"] = document["events"][1]["canonical"].replace(
        "demo-00", "demo-99"
    )
    (tmp_path / "forged.json").write_text(json.dumps(document))
    code, result = offline(auditor, "--key", key, "--trace", str(tmp_path / "forged.json"))
    assert (code, result["ok"]) == (3, False)


@pytest.mark.parametrize(
    ("cut", "error"),
    [
        (-40, "line 42 is cut short: the file is truncated"),
        ("line", "export holds 41 events, the checkpoint 42: it is truncated"),
    ],
)
def test_a_truncated_export_is_rejected(
    auditor: Path, published: dict[str, str], cut: int | str, error: str
) -> None:
    """Cut inside its last line, or after a whole line: either way the verifier says so."""
    export = Path(published["export"])
    data = export.read_bytes()
    kept = data[: data.rstrip(b"\n").rfind(b"\n") + 1] if cut == "line" else data[:cut]
    export.write_bytes(kept)
    code, result = offline(auditor, *given(published, "checkpoint", "export"))
    assert (code, result) == (3, {"ok": False, "error": error})
