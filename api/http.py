"""The read API over HTTP: thin litestar handlers over the functions the CLI calls too."""

from __future__ import annotations

from datetime import date
from functools import partial

from litestar import Litestar, Request, Response, get
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.params import FromPath, FromQuery
from litestar.response import Stream
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
    HTTP_500_INTERNAL_SERVER_ERROR,
)

from adapters.artifacts import FileArtifactStore
from api import service
from api.service import Reads, methodology_reads, siiq_reads
from api.trace import TraceView, trace
from domain import hardware
from domain.hardware import HardwareInputError
from domain.siiq.index import IndexDocument, ModelPage, model_page
from ledger.ledger import ConsistencyProof, InclusionProof, Ledger, LedgerIntegrityError
from ledger.merkle import ProofError
from projections import views
from projections.methodology import Methodology
from projections.siiq import Siiq, index_document


def _ledger(state: State) -> Ledger:
    ledger: Ledger = state.ledger
    return ledger


def _reads(state: State) -> Reads:
    reads: Reads = state.reads
    return reads


@get("/healthz", sync_to_thread=True)
def healthz(state: State) -> service.Health:
    return service.health(_ledger(state))


@get("/ledger/checkpoint", sync_to_thread=True)
def checkpoint(state: State, size: FromQuery[int | None] = None) -> service.CheckpointView:
    return service.checkpoint_view(_ledger(state), size)


@get("/ledger/proof/inclusion", sync_to_thread=True)
def inclusion_proof(
    state: State, position: FromQuery[int], size: FromQuery[int | None] = None
) -> InclusionProof:
    return _ledger(state).inclusion_proof(position, size)


@get("/ledger/proof/consistency", sync_to_thread=True)
def consistency_proof(
    state: State, first: FromQuery[int], second: FromQuery[int]
) -> ConsistencyProof:
    return _ledger(state).consistency_proof(first, second)


@get("/leaderboard", sync_to_thread=True)
def leaderboard(
    state: State, cycle: FromQuery[str], as_of: FromQuery[int | None] = None
) -> views.LeaderboardView:
    return _reads(state).answer(
        ("leaderboard", cycle), partial(views.leaderboard_view, cycle=cycle), as_of
    )


@get("/projects/{project_id:path}", sync_to_thread=True)
def project(
    state: State, project_id: FromPath[str], as_of: FromQuery[int | None] = None
) -> views.ProjectView:
    project_id = project_id.lstrip("/")
    view = partial(views.project_view, project_id=project_id)
    return _reads(state).answer(("project", project_id), view, as_of)


@get("/runs/{run_id:str}", sync_to_thread=True)
def run(state: State, run_id: FromPath[str], as_of: FromQuery[int | None] = None) -> views.RunView:
    return _reads(state).answer(("run", run_id), partial(views.run_view, run_id=run_id), as_of)


@get("/runs/{run_id:str}/trace", sync_to_thread=True)
def run_trace(state: State, run_id: FromPath[str]) -> TraceView:
    return trace(_ledger(state), _reads(state), run_id)


@get("/methodology/editions", sync_to_thread=True)
def editions(state: State, as_of: FromQuery[int | None] = None) -> views.EditionsView:
    return _reads(state).answer(("editions",), views.editions_view, as_of)


@get("/methodology/sources", sync_to_thread=True)
def sources(state: State, as_of: FromQuery[int | None] = None) -> views.SourcesView:
    return _reads(state).answer(("sources",), views.sources_view, as_of)


@get("/data/index.json", sync_to_thread=True)
def index_json(state: State, as_of: FromQuery[int | None] = None) -> IndexDocument:
    siiq: Reads[Siiq] = state.siiq
    return siiq.answer(("index",), index_document, as_of)


@get("/siiq/models/{slug:path}", sync_to_thread=True)
def siiq_model(state: State, slug: FromPath[str], as_of: FromQuery[int | None] = None) -> ModelPage:
    siiq: Reads[Siiq] = state.siiq
    slug = slug.lstrip("/")
    return model_page(siiq.answer(("index",), index_document, as_of), slug)


MEDIA = {"cast": "application/x-asciicast", "log": "text/plain; charset=utf-8"}


@get("/runs/{run_id:str}/evidence/{kind:str}", sync_to_thread=True)
def run_evidence(state: State, run_id: FromPath[str], kind: FromPath[str]) -> Response[object]:
    """The served copy of a run's log or recording (never the raw file), with its fingerprints
    and the transforms applied; while a file of the run is withheld, every file of it answers 451
    with the reason."""
    copies = _reads(state).answer(("evidence", run_id), partial(_copies, run_id=run_id))
    copy = copies.get(kind)
    if kind not in MEDIA or copy is None:
        raise LookupError(f"run {run_id!r} has no {kind!r} evidence")
    withheld = [f"{k} withheld: {c.withheld}" for k, c in sorted(copies.items()) if c.withheld]
    if withheld or copy.served_sha256 is None:  # section 17: the whole run is withheld
        detail = "; ".join(withheld) or f"{kind} withheld"
        return Response({"status_code": 451, "detail": detail}, status_code=451)
    artifacts: FileArtifactStore = state.artifacts
    headers = {
        "X-Argusic-Raw-SHA256": copy.raw_sha256,
        "X-Argusic-Served-SHA256": copy.served_sha256,
        "X-Argusic-Transforms": ", ".join(copy.transforms),
    }
    return Stream(artifacts.read(copy.served_sha256), media_type=MEDIA[kind], headers=headers)


@get("/hardware/table", sync_to_thread=False)
def hardware_table() -> list[hardware.ClassEstimate]:
    """The appendix's table: what each model size class needs (estimated)."""
    return hardware.table()


@get("/hardware/estimate", sync_to_thread=False)
def hardware_estimate(
    *,
    memory_gb: FromQuery[float | None] = None,
    memory_kind: FromQuery[hardware.MemoryKind | None] = None,
    bandwidth_gbs: FromQuery[float | None] = None,
    chip: FromQuery[str | None] = None,
    price_usd: FromQuery[float | None] = None,
    price_date: FromQuery[date | None] = None,
) -> hardware.Estimate:
    """Every size class against one machine; what depends on a missing input is `unknown`."""
    return hardware.estimate(
        hardware.machine(
            memory_gb=memory_gb,
            memory_kind=memory_kind,
            bandwidth_gbs=bandwidth_gbs,
            chip=chip,
            price_usd=price_usd,
            price_date=price_date,
        )
    )


def _copies(state: Methodology, as_of: int, run_id: str) -> dict[str, views.EvidenceView]:
    views.find_run(state, run_id, as_of)
    return views.evidence_views(state, run_id)


def _error(status: int) -> object:
    def handler(_: Request[object, object, State], exc: Exception) -> Response[dict[str, object]]:
        return Response({"status_code": status, "detail": str(exc)}, status_code=status)

    return handler


def create_app(ledger: Ledger, artifacts: FileArtifactStore) -> Litestar:
    return Litestar(
        route_handlers=[
            healthz,
            checkpoint,
            inclusion_proof,
            consistency_proof,
            leaderboard,
            project,
            run,
            run_trace,
            editions,
            sources,
            index_json,
            siiq_model,
            run_evidence,
            hardware_table,
            hardware_estimate,
        ],
        state=State(
            {
                "ledger": ledger,
                "reads": methodology_reads(ledger),
                "siiq": siiq_reads(ledger),
                "artifacts": artifacts,
            }
        ),
        exception_handlers={
            LookupError: _error(HTTP_404_NOT_FOUND),
            ProofError: _error(HTTP_400_BAD_REQUEST),
            HardwareInputError: _error(HTTP_400_BAD_REQUEST),
            LedgerIntegrityError: _error(HTTP_500_INTERNAL_SERVER_ERROR),
        },
        openapi_config=OpenAPIConfig(title="Argusic", version="0.1.0", path="/schema"),
    )
