"""What the CLI and the HTTP API both answer: one method per question, over the projections'
readers and the ledger."""

from __future__ import annotations

from functools import partial

import msgspec

from api.services.reader import ProjectionReader
from domain.siiq.index import IndexDocument, ModelPage, model_page
from ledger.ledger import ConsistencyProof, InclusionProof, Ledger
from projections.methodology import Methodology, MethodologyProjection
from projections.siiq import Siiq, SiiqProjection, index_document
from projections.views.cycles import CyclesView, cycles_view
from projections.views.editions import EditionsView, editions_view
from projections.views.evidence import ServedCopy, served_copy
from projections.views.leaderboard import LeaderboardView, leaderboard_view
from projections.views.methodology import MethodologyView, methodology_view
from projections.views.project import ProjectView, project_view
from projections.views.projects import ProjectsView, projects_view
from projections.views.run import RunView, run_view
from projections.views.sources import SourcesView, sources_view
from projections.views.trace import TraceBasis, trace_basis


class CheckpointView(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: str
    note: str
    public_key: str
    sealed_at: str


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: str
    size: int


class LedgerQueries:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def health(self) -> Health:
        return Health(status="ok", size=self.ledger.size())

    def checkpoint(self, size: int | None = None) -> CheckpointView:
        checkpoint = self.ledger.checkpoint(size)
        return CheckpointView(
            size=checkpoint.size,
            root=checkpoint.root.hex(),
            note=checkpoint.note,
            public_key=str(self.ledger.recorder.sealer.verifier),
            sealed_at=checkpoint.sealed_at,
        )

    def inclusion(self, position: int, size: int | None = None) -> InclusionProof:
        return self.ledger.inclusion_proof(position, size)

    def consistency(self, first: int, second: int) -> ConsistencyProof:
        return self.ledger.consistency_proof(first, second)


class MethodologyQueries:
    def __init__(self, ledger: Ledger) -> None:
        self.reader = ProjectionReader(ledger, MethodologyProjection())

    def leaderboard(self, cycle: str, as_of: int | None = None) -> LeaderboardView:
        view = partial(leaderboard_view, cycle=cycle)
        return self.reader.answer(("leaderboard", cycle), view, as_of)

    def projects(self, as_of: int | None = None) -> ProjectsView:
        return self.reader.answer(("projects",), projects_view, as_of)

    def project(self, project_id: str, as_of: int | None = None) -> ProjectView:
        view = partial(project_view, project_id=project_id)
        return self.reader.answer(("project", project_id), view, as_of)

    def run(self, run_id: str, as_of: int | None = None) -> RunView:
        return self.reader.answer(("run", run_id), partial(run_view, run_id=run_id), as_of)

    def cycles(self, as_of: int | None = None) -> CyclesView:
        return self.reader.answer(("cycles",), cycles_view, as_of)

    def editions(self, as_of: int | None = None) -> EditionsView:
        return self.reader.answer(("editions",), editions_view, as_of)

    def methodology(self, as_of: int | None = None) -> MethodologyView:
        return self.reader.answer(("methodology",), methodology_view, as_of)

    def sources(self, as_of: int | None = None) -> SourcesView:
        return self.reader.answer(("sources",), sources_view, as_of)

    def served_copy(self, run_id: str, kind: str) -> ServedCopy:
        view = partial(served_copy, run_id=run_id, kind=kind)
        return self.reader.answer(("served", run_id, kind), view)

    def trace_basis(self, run_id: str) -> TraceBasis:
        return self.reader.answer(("trace", run_id), partial(trace_basis, run_id=run_id))

    def state(self) -> Methodology:
        """The folded state at the head (read only)."""
        return self.reader.latest()


class SiiqQueries:
    def __init__(self, ledger: Ledger) -> None:
        self.reader: ProjectionReader[Siiq] = ProjectionReader(ledger, SiiqProjection())

    def index(self, as_of: int | None = None) -> IndexDocument:
        return self.reader.answer(("index",), index_document, as_of)

    def model(self, slug: str, as_of: int | None = None) -> ModelPage:
        return model_page(self.index(as_of), slug)
