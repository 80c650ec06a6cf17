"""The copies in reference/ are the workplace's files, byte for byte (reference/README.md)."""

from __future__ import annotations

import hashlib

from tests.reference import DATA, REFERENCE


def sha256(path_in_reference: str) -> str:
    return hashlib.sha256((REFERENCE / path_in_reference).read_bytes()).hexdigest()


def test_every_reference_file_is_listed_with_its_sha256() -> None:
    listed = dict(
        reversed(line.split("  ", 1))
        for line in (REFERENCE / "SHA256SUMS").read_text().splitlines()
    )
    ours = {REFERENCE / "SHA256SUMS", REFERENCE / "README.md"}
    on_disk = {
        p.relative_to(REFERENCE).as_posix()
        for p in REFERENCE.rglob("*")
        if p.is_file() and p not in ours
    }
    assert set(listed) == on_disk
    assert {path: sha256(path) for path in listed} == listed


def test_every_data_file_is_the_one_the_workplace_manifest_lists() -> None:
    rows = (DATA / "MANIFEST.tsv").read_text().splitlines()[1:]
    manifest = {path: (prefix, int(size)) for prefix, size, path in (r.split("\t") for r in rows)}
    # The workplace wrote its data/README.md after the manifest: its own copy differs from its line.
    after = {DATA / "MANIFEST.tsv", DATA / "README.md"}
    copied = [p for p in DATA.rglob("*") if p.is_file() and p not in after]
    assert len(copied) > 100
    for path in copied:
        name = path.relative_to(DATA).as_posix()
        body = path.read_bytes()
        assert manifest[name] == (hashlib.sha256(body).hexdigest()[:16], len(body)), name
