"""SI-IQ over HTTP: the published index and a model's page."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from api.services.queries import SiiqQueries
from api.web import page
from domain.siiq.index import IndexDocument, ModelPage


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


router = Router("/", route_handlers=[index_json, siiq_index, siiq_model])
