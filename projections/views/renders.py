"""A run's renders (methodology section 17, the presentation layer): each a derived video of the
served recording, with the edits made and a link back to its evidence."""

from __future__ import annotations

import msgspec

from domain.errors import NotFound
from domain.state.methodology import Methodology
from domain.state.records import Rendered
from projections.views.approved import Approved
from projections.views.evidence import served_url

MEDIA_TYPES = {"gif": "image/gif", "mp4": "video/mp4"}


class RenderRow(msgspec.Struct, frozen=True, kw_only=True):
    render: str
    sha256: str
    source_sha256: str
    """The served recording it was made from (`/runs/<id>/evidence/cast`)."""
    edits: list[str]
    url: str
    """The render's page; its file is at `<url>/file`."""
    format: str
    bytes: int
    tools: dict[str, str]
    position: int
    """The ledger position of its `RenderMade` event."""


class RendersView(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    as_of: int
    renders: list[RenderRow]
    recording_url: str | None
    """Where the recording they are made from is served (None while it is withheld)."""
    approved: Approved | None = None
    """Set on public documents: what an operator approved (methodology section 1)."""


class RenderView(msgspec.Struct, frozen=True, kw_only=True):
    """One render, and what it links back to: its run and the evidence it was made from."""

    run_id: str
    as_of: int
    render: RenderRow
    run_url: str
    evidence_url: str
    file_url: str
    media_type: str
    approved: Approved | None = None


def render_row(run_id: str, number: int, made: Rendered) -> RenderRow:
    event = made.event
    return RenderRow(
        render=event.render,
        sha256=event.sha256,
        source_sha256=event.source_sha256,
        edits=list(event.edits),
        url=f"/runs/{run_id}/renders/{number}",
        format=event.format,
        bytes=event.bytes,
        tools=dict(event.tools),
        position=made.position,
    )


def renders_view(state: Methodology, as_of: int, run_id: str) -> RendersView:
    """The run's renders as of `as_of`, in the order made (a run the reader may not see has
    none it may see: not found)."""
    state.find_run(run_id, as_of)
    made = state.renders.get(run_id, [])
    rows = [render_row(run_id, number, r) for number, r in enumerate(made, start=1)]
    return RendersView(
        run_id=run_id,
        as_of=as_of,
        renders=rows,
        recording_url=served_url(state, run_id, "cast"),
    )


def render_view(state: Methodology, as_of: int, run_id: str, number: int) -> RenderView:
    listed = renders_view(state, as_of, run_id)
    rows = listed.renders
    if not 1 <= number <= len(rows):
        raise NotFound(f"run {run_id!r} has no render {number} as of position {as_of}")
    row = rows[number - 1]
    return RenderView(
        run_id=run_id,
        as_of=as_of,
        render=row,
        run_url=f"/runs/{run_id}",
        evidence_url=listed.recording_url or f"/runs/{run_id}#evidence-cast",
        file_url=f"{row.url}/file",
        media_type=MEDIA_TYPES.get(row.format, "application/octet-stream"),
    )
