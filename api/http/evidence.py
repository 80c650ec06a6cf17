"""A run's evidence as served (methodology section 17): the served copy, never the raw file."""

from __future__ import annotations

from litestar import Response, Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Stream

from api.http.errors import problem
from api.http.openapi import problems
from api.services.ports import EvidenceStore
from api.services.queries import MethodologyQueries

UNAVAILABLE_FOR_LEGAL_REASONS = 451


@get(
    "/runs/{run_id:str}/evidence/{kind:str}",
    sync_to_thread=True,
    responses=problems(404, UNAVAILABLE_FOR_LEGAL_REASONS, 503),
)
def run_evidence(
    methodology: NamedDependency[MethodologyQueries],
    evidence_store: NamedDependency[EvidenceStore],
    run_id: FromPath[str],
    kind: FromPath[str],
) -> Stream | Response[dict[str, object]]:
    """The served copy of a run's log or recording, with its fingerprints and the transforms
    applied; while a file of the run is withheld, every file of it answers 451 with the reason."""
    copy = methodology.served_copy(run_id, kind)
    if copy.withheld is not None or copy.served_sha256 is None:
        return problem(UNAVAILABLE_FOR_LEGAL_REASONS, copy.withheld or f"{kind} withheld")
    headers = {
        "X-Argusic-Raw-SHA256": copy.raw_sha256,
        "X-Argusic-Served-SHA256": copy.served_sha256,
        "X-Argusic-Transforms": ", ".join(copy.transforms),
        "ETag": f'"{copy.served_sha256}"',
    }
    return Stream(
        evidence_store.read(copy.served_sha256), media_type=_typed(copy.media_type), headers=headers
    )


def _typed(media_type: str) -> str:
    """The media type as litestar is given it: it names `charset=utf-8` after every `text/`
    type itself, so one that names it already would name it twice."""
    return media_type.partition(";")[0] if media_type.startswith("text/") else media_type


@get("/instructions/{sha256:str}", sync_to_thread=True, responses=problems(404, 503))
def instructions(
    methodology: NamedDependency[MethodologyQueries],
    evidence_store: NamedDependency[EvidenceStore],
    sha256: FromPath[str],
) -> Stream:
    """A version of the standard instructions the agents were given, as published (sections 7
    and 18): every run's page names the one it had."""
    published = methodology.instructions(sha256)
    return Stream(
        evidence_store.read(published.sha256),
        media_type="text/markdown",
        headers={"X-Argusic-SHA256": published.sha256, "ETag": f'"{published.sha256}"'},
    )


router = Router("/", route_handlers=[run_evidence, instructions])
