"""`argusic render RUN_ID --out FILE`: a render of a run's served recording (methodology section
17, the presentation layer: "cualquier video o imagen para redes sociales es un render de la
evidencia"). Made from the served copy (redacted, masked, neutrally branded), never the stored
or raw file; the edits checked by `domain.presentation`; the file kept content-addressed; and
the render recorded as a `RenderMade` event naming its source's fingerprint and its edit list.
The same command on the same ledger gives the same bytes, and records the render once."""

from __future__ import annotations

import msgspec

from api.services.ports import EvidenceStore, Renderer
from api.services.queries import MethodologyQueries
from domain.errors import Rejected
from domain.events import RenderMade
from domain.evidence.asciicast import RecordingError
from domain.evidence.timeline import recording_events, run_timeline
from domain.presentation import SECTION, Edits, Trim, allowed_edits, frame_plan
from ledger.ledger import Ledger


class RenderAsked(msgspec.Struct, frozen=True, kw_only=True):
    """What `argusic render` was asked: the run, the format and the edits as typed."""

    run_id: str
    format: str
    speed: float = 1.0
    idle_cap: float | None = None
    trims: list[Trim] = msgspec.field(default_factory=list)
    captions: bool = False


class RenderReport(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    render: str
    sha256: str
    source_sha256: str
    edits: list[str]
    url: str
    recorded: bool
    """False when the same render was recorded before (nothing appended)."""


def heading(run_id: str, position: int, source_sha256: str, edits: Edits) -> list[str]:
    """What every frame carries above the terminal: the run's address and the recording's
    SHA-256 (section 17: "Cada video publicado enlaza de vuelta a su evidencia"), and the edits."""
    return [
        f"Argusic run {run_id}: /runs/{run_id} (ledger position {position})",
        f"recording SHA-256 {source_sha256}",
        "edits: " + (", ".join(edits.names()) or "none"),
    ]


def render_run(
    ledger: Ledger,
    methodology: MethodologyQueries,
    store: EvidenceStore,
    renderer: Renderer,
    asked: RenderAsked,
) -> tuple[RenderReport, bytes]:
    """The render's record and bytes: refused (naming the rule) for an edit section 17 does not
    allow, or a run whose recording is withheld."""
    state = methodology.state()
    run = state.find_run(asked.run_id, ledger.size())
    copy = methodology.served_copy(asked.run_id, "cast")
    if copy.withheld is not None or copy.served_sha256 is None:
        raise Rejected(SECTION, f"run {asked.run_id}: {copy.withheld or 'no recording served'}")
    source = copy.served_sha256
    cast = b"".join(store.read(source))
    try:
        timeline = run_timeline(run.event, [cast], source)
        header = msgspec.json.decode(cast.split(b"\n", 1)[0])
        events = list(recording_events([cast]))
    except (RecordingError, msgspec.DecodeError) as e:
        raise Rejected(SECTION, f"run {asked.run_id}: its recording cannot be replayed: {e}") from e
    edits = allowed_edits(
        timeline,
        speed=asked.speed,
        idle_cap=asked.idle_cap,
        trims=asked.trims,
        captions=asked.captions,
    )
    plan = frame_plan([t for t, _ in events], edits, renderer.fps, timeline)
    size = (int(header.get("width", 80)), int(header.get("height", 24)))
    data = renderer.render(
        size,
        [text for _, text in events],
        plan,
        heading(asked.run_id, run.position, source, edits),
        asked.format,
    )
    kept = store.put_stream([data])
    made = RenderMade(
        render="",
        run_id=asked.run_id,
        source_sha256=source,
        edits=edits.names(),
        format=asked.format,
        sha256=kept.sha256,
        bytes=kept.bytes,
        tools=renderer.versions(),
    )
    return _recorded(ledger, methodology, made), data


def _recorded(ledger: Ledger, methodology: MethodologyQueries, made: RenderMade) -> RenderReport:
    """The render recorded once: the same output of the same source with the same edits is the
    render already recorded."""
    earlier = methodology.state().renders.get(made.run_id, [])
    number = next(
        (
            n
            for n, r in enumerate(earlier, start=1)
            if (r.event.sha256, r.event.source_sha256, r.event.edits)
            == (made.sha256, made.source_sha256, made.edits)
        ),
        None,
    )
    recorded = number is None
    if number is None:
        number = len(earlier) + 1
        made = msgspec.structs.replace(made, render=f"{made.run_id}/render/{number}")
        ledger.append(ledger.next_versions([made]))
    return RenderReport(
        run_id=made.run_id,
        render=f"{made.run_id}/render/{number}",
        sha256=made.sha256,
        source_sha256=made.source_sha256,
        edits=made.edits,
        url=f"/runs/{made.run_id}/renders/{number}",
        recorded=recorded,
    )
