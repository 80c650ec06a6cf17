"""Archives in evidence (section 17, issue 26): told by their content, never opened, refused in
bounded memory wherever they are (a whole file, or a stream printed into a log, cut between
two chunks)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from collections.abc import Iterator

import pytest

from domain.evidence.archives import (
    ArchiveFound,
    archive_format,
    archive_inside,
    refusing_archives,
)
from tests.domain.test_evidence import chunks

KEY = b"sk-or-v1-" + b"5f0c9a7e1d3b8264" * 4


def zipped(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, data)
    return out.getvalue()


def tarred(name: str, data: bytes, mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as t:  # type: ignore[call-overload]
        member = tarfile.TarInfo(name)
        member.size = len(data)
        t.addfile(member, io.BytesIO(data))
    return out.getvalue()


def tar_gz_holding_a_zip_with_keys() -> bytes:
    """The probe of issue 26: keys in a zip, in a tar.gz, named as a run's log."""
    return tarred("secrets.zip", zipped("keys.env", b"OPENROUTER_API_KEY=" + KEY + b"\n"))


FILES = {
    "gzip": gzip.compress(KEY),
    "bzip2": bz2.compress(KEY),
    "xz": lzma.compress(KEY),
    "lzma": lzma.compress(KEY, format=lzma.FORMAT_ALONE),
    "zip": zipped("k", KEY),
    "tar": tarred("k", KEY, "w"),
}


@pytest.mark.parametrize("form", sorted(FILES))
def test_archive_format_tells_each_format_by_its_content(form: str) -> None:
    assert archive_format(FILES[form]) == form


def test_archive_format_of_the_tar_gz_holding_a_zip() -> None:
    assert archive_format(tar_gz_holding_a_zip_with_keys()) == "gzip"


def test_text_is_no_archive() -> None:
    for text in [b"", b"$ make\n", b'{"version": 2}\n', "Compilaci\u00f3n \u2713\n".encode()]:
        assert archive_format(text) is None
        assert archive_inside(text) is None


def test_archive_inside_finds_a_stream_printed_into_a_log() -> None:
    log = b"$ cat secrets.zip\n" + zipped("k", KEY) + b"\n$ echo done\n"
    assert archive_inside(log) == "zip"
    assert archive_inside(b"$ cat x.gz\n" + gzip.compress(KEY)) == "gzip"


def _read(data: bytes, size: int, kind: str = "log") -> bytes:
    return b"".join(refusing_archives(chunks(data, size), kind, inside=kind == "log"))


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_refusing_archives_refuses_a_whole_archive_in_any_chunks(size: int) -> None:
    with pytest.raises(ArchiveFound, match="the log is a gzip archive"):
        _read(tar_gz_holding_a_zip_with_keys(), size)
    with pytest.raises(ArchiveFound, match="the cast is a zip archive"):
        _read(FILES["zip"], size, "cast")


@pytest.mark.parametrize("size", [1, 3, 600, 1 << 20])
def test_refusing_archives_finds_a_signature_cut_between_chunks(size: int) -> None:
    log = b"x" * 1000 + b"$ cat a.zip\n" + zipped("k", KEY)
    with pytest.raises(ArchiveFound, match="the log holds a zip archive"):
        _read(log, size)


def test_refusing_archives_passes_text_as_it_came() -> None:
    text = b"".join(b"line %d of the build\r\n" % n for n in range(5000))
    assert _read(text, 7) == text
    assert _read(text, 1 << 20) == text


def _bomb() -> Iterator[bytes]:
    """A gzip stream of a terabyte of zeros, served lazily: never decompressed, never held."""
    yield gzip.compress(b"\0" * (1 << 20))[:512]
    while True:
        yield b"\0" * (1 << 20)


def test_a_bomb_or_a_deep_nesting_is_refused_before_anything_is_opened() -> None:
    with pytest.raises(ArchiveFound, match="gzip"):
        next(refusing_archives(_bomb(), "log", inside=True))
    nested = KEY
    for _ in range(200):
        nested = gzip.compress(nested)
    with pytest.raises(ArchiveFound, match="gzip"):
        _read(nested, 4096)
