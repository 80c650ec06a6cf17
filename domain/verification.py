"""Verifying means decoding, not probing (methodology section 16)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

import msgspec

from domain.editions import version_key
from domain.events import Report, RunRecorded, Verification
from domain.evidence.terminal_text import shows_in_order, terminal_output

DECODING_REQUIRED_FROM = (1, 4)
NOT_VERIFIED = "not verified"
RULE = "section 16, from v1.4"

_START = r"(?:^|[;&|(`]\s*|\$\(\s*|\bsudo\s+|\btime\s+)"
"""Where a command starts: the line's start, after a separator, `sudo` or `time`."""
_FILE_ARG = r"(?:\s+-\S+)*\s+[^\s|;&<>()-]"
"""A command given a file (not only flags, not reading a pipe)."""

DECODINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("ffmpeg decoding to null", r"\bffmpeg\b.*\s-f\s+null\b"),
        (
            "an image decoder",
            r"\b(?:dwebp|djpeg|jpegtopnm|pngtopnm|pngtopam|anytopnm|avifdec|heif-convert|"
            r"gdk-pixbuf-csource)\b",
        ),
        ("an image decoder (ImageMagick to null)", r"\b(?:magick|convert)\b.*\snull:"),
        (
            "an image decoder (Python)",
            r"\.(?:load|convert|tobytes|getdata)\(|\bcv2\.imread\(|\bimageio\b.*\bimread\(",
        ),
        ("printing the text", _START + r"(?:cat|bat|tac|pdftotext)" + _FILE_ARG),
        ("printing the text (Python)", r"\bprint\(.*\bopen\(.*\.read\("),
        ("printing the text (HTTP body)", _START + r"(?:curl|wget)\b(?!.*\s(?:-i|--head)\b)"),
    )
)
"""Section 16: "ffmpeg -v error -i FILE -f null - para video y audio, un decodificador real
para una imagen, imprimirlo para el texto"."""

PROBES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("ffprobe", r"\bffprobe\b"),
        ("ffmpeg without decoding to null", r"\bffmpeg\b"),
        ("file", _START + r"file\s"),
        ("a byte count", r"\bwc\b.*\s-\w*c|\bwc\s+--bytes|\bdu\b|getsize\(|\bst_size\b"),
        ("a header read (identify)", r"\bidentify\b"),
        ("a header read", _START + r"(?:xxd|od|hexdump|head|exiftool|mediainfo)\b"),
        ("a header read (Python)", r"\bimage\.open\("),
        (
            "the file's existence (ls/stat)",
            _START + r"(?:ls|stat|find)\b|\btest\s+-[efs]\s|\[\s+-[efs]\s",
        ),
        ("the file's existence (Python)", r"\bos\.path\.(?:exists|isfile)\(|\.exists\(\)"),
    )
)
"""Section 16: "Que un archivo exista no es un resultado, y leer su cabecera no es una
comprobación. ffprobe -show_streams, file y un recuento de bytes ... no decodifican nada"."""

_FIRST_BYTES = re.compile(r"\.read\(\s*\d+\s*\)|\.read\(\)\s*\[\s*:\s*\d+\s*\]")
"""Python reading a file's first bytes (`.read(8)`, `.read()[:4]`): a header read."""
_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")
_BYTE_COUNT = re.compile(r"[\d][\d,._]*\s*(?:bytes?|b|kb|kib|mb|mib|gb|gib)")
_SILENT = re.compile(
    r"\(?(?:no (?:errors?|output|warnings?)|nothing(?: printed)?|silent|empty(?: output)?|"
    r"0 errors|exit(?: code| status)? 0|decoded without errors)\)?"
)
"""A quote saying the command printed nothing amiss: a clean decoding to null prints nothing."""


class Claim(NamedTuple):
    """`verified_how` read as `COMMAND -> WHAT IT RETURNED` (the output is optional)."""

    command: str
    quoted: list[str]
    """The parts of the quoted output that must show after the command (silence is none)."""
    byte_count: bool
    """The quote is a byte count alone."""


def claim(verified_how: str) -> Claim:
    """Split at the first arrow (`->`, `→`, `=>`); the quote into its comma- or
    semicolon-separated parts, quotes and a final full stop trimmed."""
    parts = _ARROW.split(verified_how.strip(), maxsplit=1)
    command, quote = parts[0].strip(), (parts[1] if len(parts) > 1 else "")
    pieces = [p.strip(" \t'\"`.").casefold() for p in re.split(r"[,;]", quote)]
    quoted = [p for p in pieces if p and not _SILENT.fullmatch(p)]
    return Claim(command, quoted, bool(_BYTE_COUNT.fullmatch(quote.strip(" .'\"`").casefold())))


class Kind(NamedTuple):
    decoding: bool
    name: str
    """The decoding or the probe named, or "no decoding"."""


def decoding_named(verified_how: str) -> Kind:
    """Section 16 ("Verificar significa decodificar, no sondear"): does `verified_how` name a
    decoding (ffmpeg to null, a real image decoder, printing the text) or a probe (ffprobe,
    file, a byte count, ls/stat, a header read)? A decoding anywhere in the command counts; a
    quote that is only a byte count reports a byte count, whatever ran."""
    said = claim(verified_how)
    command = said.command.casefold()
    if said.byte_count:
        return Kind(False, "a byte count")
    if _FIRST_BYTES.search(command):
        return Kind(False, "a header read (the first bytes)")
    for name, pattern in DECODINGS:
        if pattern.search(command):
            return Kind(True, name)
    for name, pattern in PROBES:
        if pattern.search(command):
            return Kind(False, name)
    return Kind(False, "no decoding")


def decoding_reported(report: Report) -> bool:
    """Section 16: verified_how holds the command that decoded the output and what it returned;
    "not verified" (or nothing) is an accepted answer, and reports no decoding."""
    how = (report.verified_how or "").strip()
    return bool(how) and how.lower() != NOT_VERIFIED


def concerned(report: Report | None, edition: str) -> bool:
    """A `tier1_real` claim under an edition from v1.4: what section 16 judges."""
    return (
        report is not None
        and report.test_depth == "tier1_real"
        and version_key(edition) >= DECODING_REQUIRED_FROM
    )


def verification_found(
    report: Report | None, edition: str, recording: Callable[[], Iterable[bytes]] | None
) -> Verification | None:
    """Section 16, from v1.4, when a run is recorded: a `tier1_real` claim counts only when
    `verified_how` names a decoding and that command shows in the run's own recording (its
    terminal output, security-redacted as stored), followed by each part of the output the
    report quotes. `recording` gives the stored recording's bytes (None: there is none); it is
    read only for a decoding. None for what section 16 does not judge."""
    if report is None or not concerned(report, edition):
        return None
    if not decoding_reported(report):
        return Verification(decoding=False, in_recording=False, reason=_no_decoding())
    how = report.verified_how or ""
    kind = decoding_named(how)
    if not kind.decoding:
        return Verification(decoding=False, in_recording=False, reason=_probe(kind.name))
    said = claim(how)
    if recording is None:
        return Verification(decoding=True, in_recording=False, reason=_absent("no recording"))
    found = shows_in_order(terminal_output(recording()), said.command, said.quoted)
    if found is not None:
        return Verification(decoding=True, in_recording=False, reason=_absent(found))
    return Verification(decoding=True, in_recording=True)


def _no_decoding() -> str:
    return f"verified_how reports no decoding: counted as tier3_none ({RULE})"


def _probe(name: str) -> str:
    if name == "no decoding":
        return f"verified_how names no decoding: counted as tier3_none ({RULE})"
    return f"verified_how names a probe ({name}), not a decoding: counted as tier3_none ({RULE})"


def _absent(what: str) -> str:
    return (
        f"the decoding verified_how names is not in the run's recording ({what}): counted as "
        f"tier3_none ({RULE})"
    )


def judged_verification(run: RunRecorded) -> Verification | None:
    """What section 16 found of the run's claim: as recorded, or, for a run recorded before it
    was, by the command rule alone (its recording is not read again)."""
    if run.verification is not None or not concerned(run.report, run.edition):
        return run.verification
    report = run.report
    assert report is not None
    if not decoding_reported(report):
        return Verification(decoding=False, in_recording=False, reason=_no_decoding())
    kind = decoding_named(report.verified_how or "")
    if not kind.decoding:
        return Verification(decoding=False, in_recording=False, reason=_probe(kind.name))
    return None


def verification_note(run: RunRecorded) -> str | None:
    """Why the run's `tier1_real` claim counts as `tier3_none`, for its page; None if it counts."""
    found = judged_verification(run)
    return None if found is None else found.reason


def as_verified(run: RunRecorded) -> Report | None:
    """Section 16, from v1.4: tier1_real is earned only by a decoding the report names and the
    run's recording shows; a tier1_real claim without one counts as unverified (tier3_none).
    Before v1.4 the report is taken as it stands: no edition applies backwards."""
    found = judged_verification(run)
    if run.report is not None and found is not None and found.reason is not None:
        return msgspec.structs.replace(run.report, test_depth="tier3_none")
    return run.report
