"""A run's renders (methodology section 17, the presentation layer): the list, each render's
page linking back to its run and evidence, and its file; as of an approved position, for runs
the public may see."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Stream

from api.http.limits import AsOf
from api.http.openapi import READ, problems
from api.services.ports import EvidenceStore
from api.services.queries import MethodologyQueries
from api.web import page
from projections.views.renders import RendersView, RenderView


@get("/runs/{run_id:str}/renders", sync_to_thread=True, responses=READ, opt=page("renders.html"))
def run_renders(
    methodology: NamedDependency[MethodologyQueries],
    run_id: FromPath[str],
    as_of: AsOf = None,
) -> RendersView:
    """Section 17: the run's renders, each with its source recording's SHA-256 and its edits."""
    return methodology.renders(run_id, as_of)


@get(
    "/runs/{run_id:str}/renders/{number:int}",
    sync_to_thread=True,
    responses=READ,
    opt=page("render.html"),
)
def run_render(
    methodology: NamedDependency[MethodologyQueries],
    run_id: FromPath[str],
    number: FromPath[int],
    as_of: AsOf = None,
) -> RenderView:
    """One render, linking back to its run and the evidence it was made from."""
    return methodology.render(run_id, number, as_of)


@get(
    "/runs/{run_id:str}/renders/{number:int}/file",
    sync_to_thread=True,
    responses=problems(404, 503),
)
def run_render_file(
    methodology: NamedDependency[MethodologyQueries],
    evidence_store: NamedDependency[EvidenceStore],
    run_id: FromPath[str],
    number: FromPath[int],
    as_of: AsOf = None,
) -> Stream:
    """The render's file, as recorded (its SHA-256 in `X-Argusic-SHA256`, its source's in
    `X-Argusic-Source-SHA256`)."""
    view = methodology.render(run_id, number, as_of)
    headers = {
        "X-Argusic-SHA256": view.render.sha256,
        "X-Argusic-Source-SHA256": view.render.source_sha256,
    }
    return Stream(
        evidence_store.read(view.render.sha256), media_type=view.media_type, headers=headers
    )


router = Router("/", route_handlers=[run_renders, run_render, run_render_file])
