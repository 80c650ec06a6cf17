"""The presentation layer's edit rules (methodology section 17): "Las ediciones permitidas son
acelerar, recortar por duración, subtítulos tomados de la cronología registrada de errores y
correcciones, y voz en off. Las ediciones prohibidas son reordenar eventos, empalmar sesiones
distintas, ocultar fallos o alterar la sustancia de lo que hizo el agent."

A render has one source recording and keeps its events in order (no reordering or splicing can
be asked for); what can be asked is checked here, each rule a function named after it."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.errors import Rejected
from domain.events.evidence import Mark, Timeline
from domain.evidence.timeline import failures

SECTION = "methodology section 17"
SPEED_UP = f"{SECTION}, acelerar: speed at least 1"
ONE_WINDOW = f"{SECTION}, no empalmar: one trim window"
NO_HIDDEN_FAILURE = f"{SECTION}, no ocultar fallos: a trim keeps every recorded failure"
END_STATE = f"{SECTION}, no alterar la sustancia: a trim keeps the end state"


class Trim(msgspec.Struct, frozen=True, kw_only=True):
    """The part of the recording kept: from `start` to `end`, seconds of the recording."""

    start: float
    end: float


class Edits(msgspec.Struct, frozen=True, kw_only=True):
    """A render's edits, the only ones section 17 allows (voice-over is not made here)."""

    speed: float = 1.0
    idle_cap: float | None = None
    """Pauses longer than this many seconds are shortened to it (a way of speeding up)."""
    trim: Trim | None = None
    captions: bool = False

    def names(self) -> list[str]:
        """The edit list as recorded with a render, in a fixed order."""
        listed = [] if self.speed == 1 else [f"speed {self.speed:g}"]
        if self.idle_cap is not None:
            listed.append(f"idle-cap {self.idle_cap:g}")
        if self.trim is not None:
            listed.append(f"trim {self.trim.start:g}:{self.trim.end:g}")
        if self.captions:
            listed.append("captions from the timeline")
        return listed


def speed_up_only(speed: float) -> None:
    """Section 17, "acelerar": a render may be faster than the session, never slower."""
    if not speed >= 1:
        raise Rejected(SPEED_UP, f"speed {speed:g} is under 1: the allowed edit is to speed up")


def idle_cap_shortens(idle_cap: float | None) -> None:
    """Section 17, "acelerar": capping pauses shortens them; a cap must be above zero."""
    if idle_cap is not None and not idle_cap > 0:
        raise Rejected(SPEED_UP, f"idle cap {idle_cap:g} is not above 0 seconds")


def one_trim_window(trims: Sequence[Trim]) -> Trim | None:
    """Section 17, "recortar por duración" and never "empalmar": at most one window is kept,
    so nothing is spliced."""
    if len(trims) > 1:
        many = f"{len(trims)} trim windows: one at most, since splicing is refused"
        raise Rejected(ONE_WINDOW, many)
    if trims and not 0 <= trims[0].start < trims[0].end:
        raise Rejected(ONE_WINDOW, f"trim {trims[0].start:g}:{trims[0].end:g} keeps nothing")
    return trims[0] if trims else None


def trim_hides_no_failure(trim: Trim | None, timeline: Timeline) -> None:
    """Section 17, "ocultar fallos" is refused: a trim may not remove any part of a recorded
    failure (from its command's start to the next command's)."""
    if trim is None:
        return
    cut = [m for m in failures(timeline) if m.time < trim.start or m.until > trim.end]
    if cut:
        raise Rejected(
            NO_HIDDEN_FAILURE,
            f"trim {trim.start:g}:{trim.end:g} removes part of a recorded failure at "
            f"{cut[0].time:g}s to {cut[0].until:g}s ({cut[0].label}): hiding failures is refused",
        )


def trim_keeps_end_state(trim: Trim | None, timeline: Timeline) -> None:
    """Section 17, "alterar la sustancia" is refused: a trim keeps the end state (the window
    runs to the recording's end)."""
    if trim is not None and trim.end < timeline.duration:
        raise Rejected(
            END_STATE,
            f"trim {trim.start:g}:{trim.end:g} ends before the recording's end state at "
            f"{timeline.duration:g}s: the end may not be cut",
        )


def allowed_edits(
    timeline: Timeline,
    *,
    speed: float = 1.0,
    idle_cap: float | None = None,
    trims: Sequence[Trim] = (),
    captions: bool = False,
) -> Edits:
    """The edits asked for, each checked against its rule; the first broken rule refuses all."""
    speed_up_only(speed)
    idle_cap_shortens(idle_cap)
    trim = one_trim_window(trims)
    trim_hides_no_failure(trim, timeline)
    trim_keeps_end_state(trim, timeline)
    return Edits(speed=speed, idle_cap=idle_cap, trim=trim, captions=captions)


def output_times(times: Sequence[float], edits: Edits) -> list[float | None]:
    """Each event's time in the render (None: trimmed off, before the window; its output still
    reaches the screen shown first), in the recording's order: pauses capped, then sped up."""
    start = edits.trim.start if edits.trim else 0.0
    placed: list[float | None] = []
    now, before = 0.0, start
    for time in times:
        if time < start:
            placed.append(None)
            continue
        gap = time - before
        if edits.idle_cap is not None:
            gap = min(gap, edits.idle_cap)
        now += gap / edits.speed
        before = time
        placed.append(now)
    return placed


def caption_at(timeline: Timeline, time: float) -> str | None:
    """Section 17, "subtítulos tomados de la cronología registrada": the caption at a time of
    the recording is the label of the last failure, fix, verification or end mark at or before
    it, while what it marks lasts; never any other text."""
    shown: Mark | None = None
    for mark in timeline.marks:
        lasts = time <= mark.until or mark.kind == "end"
        if mark.kind != "command" and mark.time <= time and lasts:
            shown = mark
    return None if shown is None else shown.label


class Frame(msgspec.Struct, frozen=True, kw_only=True):
    """One frame of a render: the recording's first `fed` events on screen, as at `time` of
    the recording, with its caption (None: no caption)."""

    fed: int
    time: float
    caption: str | None


HOLD = 2.0
"""Seconds the end state stays on screen after the last event (the render's last frames)."""


def frame_plan(times: Sequence[float], edits: Edits, fps: int, timeline: Timeline) -> list[Frame]:
    """The render's frames, `fps` a second: each shows every event placed at or before it (and
    every event trimmed off before the window), in the recording's order; the end state is held
    for `HOLD` seconds. Nothing is reordered: a frame only ever adds the next events."""
    placed = output_times(times, edits)
    kept = [(t, i) for i, t in enumerate(placed) if t is not None]
    first = next((i for t, i in kept), len(times))
    length = (kept[-1][0] if kept else 0.0) + HOLD
    frames, fed = [], first
    for k in range(int(length * fps) + 1):
        now = k / fps
        while fed < len(times) and (placed[fed] or 0.0) <= now:
            fed += 1
        time = max(times[fed - 1] if fed else 0.0, edits.trim.start if edits.trim else 0.0)
        if k == int(length * fps):
            fed, time = len(times), max(timeline.duration, time)
        caption = caption_at(timeline, time) if edits.captions else None
        frames.append(Frame(fed=fed, time=time, caption=caption))
    return frames
