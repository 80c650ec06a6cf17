"""SI-IQ over HTTP: the published index, a model's page, the evidence file (every input row as
published) and the status document (each source's last snapshot and failure)."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from api.http.limits import AsOf
from api.http.openapi import READ
from api.services.queries import SiiqQueries
from api.web import page
from domain.siiq.index import IndexDocument, ModelPage
from projections.siiq_sources import StatusDocument
from projections.views.siiq_publication import HistoryDocument


@get("/data/index.json", sync_to_thread=True, responses=READ)
def index_json(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> IndexDocument:
    return siiq.index(as_of)


@get("/data/archive/{major:int}/index.json", sync_to_thread=True, responses=READ)
def archived_index(
    siiq: NamedDependency[SiiqQueries], major: FromPath[int], as_of: AsOf = None
) -> IndexDocument:
    """SI-IQ sections 3 and 11: the last index of an earlier major version of the method."""
    return siiq.archive(major, as_of)


@get("/siiq", sync_to_thread=True, responses=READ, opt=page("siiq_index.html"))
def siiq_index(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> IndexDocument:
    """The index as a page: the same document as /data/index.json."""
    return siiq.index(as_of)


@get("/siiq/models/{slug:path}", sync_to_thread=True, responses=READ, opt=page("siiq_model.html"))
def siiq_model(
    siiq: NamedDependency[SiiqQueries], slug: FromPath[str], as_of: AsOf = None
) -> ModelPage:
    return siiq.model(slug.lstrip("/"), as_of)


@get("/data/evidence.jsonl", sync_to_thread=True, responses=READ, media_type="application/jsonl")
def evidence_jsonl(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> bytes:
    """SI-IQ section 8: every input row as it appeared at its source, a JSON object a line."""
    return siiq.evidence(as_of)


@get("/data/history.json", sync_to_thread=True, responses=READ)
def history_json(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> HistoryDocument:
    """SI-IQ section 11: each day's archived inputs rescored with the parameters in force."""
    return siiq.history(as_of)


@get("/status.json", sync_to_thread=True, responses=READ)
def status_json(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> StatusDocument:
    """SI-IQ section 8: sources, failures, holds, freezes, halts and notices."""
    return siiq.status(as_of)


@get("/status", sync_to_thread=True, responses=READ, opt=page("status.html"))
def status_page(siiq: NamedDependency[SiiqQueries], as_of: AsOf = None) -> StatusDocument:
    """The status as a page: the same document as /status.json."""
    return siiq.status(as_of)


router = Router(
    "/",
    route_handlers=[
        index_json,
        archived_index,
        siiq_index,
        siiq_model,
        evidence_jsonl,
        history_json,
        status_json,
        status_page,
    ],
)
