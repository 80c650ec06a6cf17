"""Archives in evidence (methodology section 17: "una grabación de la que no se puede demostrar
que esté libre de una credencial se retiene, y su ejecución se repite"). A run's evidence is
text: a log, an asciicast recording. An archive or a compressed stream among it (a tar.gz
named as the log, a zip printed into it by `cat`) hides its contents from the redaction; it is
never opened here (no decompression: nothing a zip bomb or a deep nesting could exhaust), so it
cannot be shown free of credentials: the file is not kept, and its run is withheld and repeated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

import re2

AT_START: dict[str, bytes] = {
    "gzip": rb"\x1f\x8b",
    "compress": rb"\x1f\x9d",
    "bzip2": rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)",
    "xz": rb"\xfd7zXZ\x00",
    "lzma": rb"\x5d\x00\x00",
    "zstd": rb"\x28\xb5\x2f\xfd",
    "lz4": rb"\x04\x22\x4d\x18",
    "zip": rb"PK(?:\x03\x04|\x05\x06|\x07\x08)",
    "7z": rb"7z\xbc\xaf\x27\x1c",
    "rar": rb"Rar!\x1a\x07",
    "tar": rb"(?s:.{257})ustar(?:\x00|  \x00)",
}
"""Each format's signature where a file of it begins (tar's is in its first header)."""
INSIDE: dict[str, bytes] = {
    "gzip": rb"\x1f\x8b\x08",
    "bzip2": AT_START["bzip2"],
    "xz": AT_START["xz"],
    "zstd": AT_START["zstd"],
    "lz4": AT_START["lz4"],
    "zip": AT_START["zip"],
    "7z": AT_START["7z"],
    "rar": AT_START["rar"],
}
"""Signatures that betray a compressed stream printed into a log (a tar printed there is plain
text, read by the redaction like the rest)."""
HEAD = 512
"""Bytes read before the start of a file is judged."""
TAIL = 15
"""Bytes of a chunk kept before the next one: a signature cut between two chunks is found."""


def _scanner(signatures: dict[str, bytes]) -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # bytes, not UTF-8
    options.dot_nl = True
    return re2.compile(b"|".join(b"(" + s + b")" for s in signatures.values()), options=options)


_AT_START, _INSIDE = _scanner(AT_START), _scanner(INSIDE)


class ArchiveFound(Exception):
    """An evidence file is, or holds, an archive: it cannot be shown free of a credential."""

    def __init__(self, kind: str, form: str, where: str) -> None:
        self.reason = (
            f"the {kind} {where} a {form} archive, which cannot be shown free of credentials "
            "without opening it: not kept, and the run is repeated (section 17)"
        )
        super().__init__(self.reason)


def archive_format(head: bytes) -> str | None:
    """Methodology section 17: the archive or compressed format a file's first bytes are in,
    by their signature (never by the file's name)."""
    found = _AT_START.match(head[:HEAD])
    return None if found is None else list(AT_START)[found.lastindex - 1]


def archive_inside(data: bytes) -> str | None:
    """Methodology section 17: the compressed format whose stream a log's bytes hold, if any."""
    found = _INSIDE.search(data)
    return None if found is None else list(INSIDE)[found.lastindex - 1]


def refusing_archives(chunks: Iterable[bytes], kind: str, *, inside: bool) -> Iterator[bytes]:
    """Section 17: a file's chunks as they come, refused (`ArchiveFound`) when the file is an
    archive, or (`inside`: a log) when it holds one anywhere; in bounded memory."""
    source = iter(chunks)
    head = b""
    for chunk in source:  # the first HEAD bytes, however small the chunks
        head += chunk
        if len(head) >= HEAD:
            break
    if (form := archive_format(head)) is not None:
        raise ArchiveFound(kind, form, "is")
    tail = b""  # the last bytes read, up to TAIL
    for chunk in chain([head], source) if head else ():
        if inside:
            form = archive_inside(tail + chunk[:TAIL]) or archive_inside(chunk)
            if form is not None:
                raise ArchiveFound(kind, form, "holds")
            tail = (tail + chunk)[-TAIL:] if len(chunk) < TAIL else chunk[-TAIL:]
        yield chunk
