"""SI-IQ over HTTP: the published index, a model's page, the evidence file (every input row as
published) and the status document (each source's last snapshot and failure)."""

from __future__ import annotations

from litestar import Response, Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from api.services.queries import SiiqQueries
from api.web import page
from domain.siiq.index import IndexDocument, ModelPage
from projections.siiq_sources import StatusDocument
from projections.views.siiq_publication import HistoryDocument


@get("/data/index.json", sync_to_thread=True)
def index_json(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> IndexDocument:
    return siiq.index(as_of)


@get("/siiq", sync_to_thread=True, opt=page("siiq_index.html"))
def siiq_index(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> IndexDocument:
    """The index as a page: the same document as /data/index.json."""
    return siiq.index(as_of)


@get("/siiq/models/{slug:path}", sync_to_thread=True, opt=page("siiq_model.html"))
def siiq_model(
    siiq: NamedDependency[SiiqQueries], slug: FromPath[str], as_of: FromQuery[int | None] = None
) -> ModelPage:
    return siiq.model(slug.lstrip("/"), as_of)


@get("/data/evidence.jsonl", sync_to_thread=True)
def evidence_jsonl(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> Response[bytes]:
    """SI-IQ section 8: every input row as it appeared at its source, a JSON object a line."""
    return Response(siiq.evidence(as_of), media_type="application/jsonl")


@get("/data/history.json", sync_to_thread=True)
def history_json(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> HistoryDocument:
    """SI-IQ section 11: each day's archived inputs rescored with the parameters in force."""
    return siiq.history(as_of)


@get("/status.json", sync_to_thread=True)
def status_json(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> StatusDocument:
    """SI-IQ section 8: sources, failures, holds, freezes, halts and notices."""
    return siiq.status(as_of)


@get("/status", sync_to_thread=True, opt=page("status.html"))
def status_page(
    siiq: NamedDependency[SiiqQueries], as_of: FromQuery[int | None] = None
) -> StatusDocument:
    """The status as a page: the same document as /status.json."""
    return siiq.status(as_of)


router = Router(
    "/",
    route_handlers=[
        index_json,
        siiq_index,
        siiq_model,
        evidence_jsonl,
        history_json,
        status_json,
        status_page,
    ],
)
