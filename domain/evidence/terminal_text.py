"""What a terminal recording shows as text (methodology section 16: a verification's command
and what it returned are looked for in the run's own recording): the output events' text,
with terminal control sequences taken out, searched as it streams, in bounded memory."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import msgspec

from domain.evidence.asciicast import RecordingError, split_lines

_event = msgspec.json.Decoder(tuple[float, str, str])
_ESCAPE = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, links
    r"|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\^_=>]"  # charset and other short escapes
)
_COMPLETE = re.compile(_ESCAPE)
_CONTROL = re.compile(_ESCAPE + r"|[\x00-\x08\x0b-\x1f\x7f]")  # and \r, backspace, ...
_SPACE = re.compile(r"\s+")
CARRY = 256
"""An escape sequence cut between two events waits this long for its end, at most."""


def terminal_output(chunks: Iterable[bytes]) -> Iterator[str]:
    """The text of a recording's output events (`o`), in order; the header, input events,
    markers and lines that are not events are passed over (a stored recording that does not
    parse shows no output; one with a line longer than any event's, nothing from there on)."""
    lines = split_lines(chunks)
    try:
        next(lines, None)  # the header
        for line in lines:
            try:
                _, code, data = _event.decode(line)
            except msgspec.DecodeError:
                continue
            if code == "o":
                yield data
    except RecordingError:  # a line too long to be an event's: nothing after it is read
        return


def normalised(text: str) -> str:
    """Text as compared: control sequences out, every run of white space one space, casefolded."""
    return _SPACE.sub(" ", _CONTROL.sub("", text)).casefold()


class _Plain:
    """Pieces of terminal text made plain, an escape sequence cut between pieces held back."""

    def __init__(self) -> None:
        self.held = ""

    def feed(self, piece: str) -> str:
        text = self.held + piece
        self.held = ""
        cut = text.rfind("\x1b", max(0, len(text) - CARRY))
        if cut != -1 and not _COMPLETE.match(text, cut):
            text, self.held = text[:cut], text[cut:]
        return _CONTROL.sub("", text)


def shows_in_order(texts: Iterable[str], command: str, quoted: list[str]) -> str | None:
    """Section 16: does the text show `command`, and after it every part of `quoted`? None if
    it does; else what is missing. White space and control sequences do not count, nor case;
    only the last `len` characters of what was read are held."""
    wanted = normalised(command).strip()
    parts = [normalised(q).strip() for q in quoted]
    if not wanted:
        return "no command named"
    plain = _Plain()
    tail = ""
    keep = max(len(n) for n in [wanted, *parts])
    for piece in texts:
        tail = _SPACE.sub(" ", tail + plain.feed(piece).casefold())
        if wanted:
            at = tail.find(wanted)
            if at == -1:
                tail = tail[-keep:]
                continue
            tail, wanted = tail[at + len(wanted) :], ""
        parts = [p for p in parts if p not in tail]
        if not parts:
            return None
        tail = tail[-keep:]
    if wanted:
        return f"the command {command.strip()!r} is not in it"
    if parts:
        return "the output it quotes is not after the command: " + ", ".join(repr(p) for p in parts)
    return None
