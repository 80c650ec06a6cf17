"""What the CLI and the HTTP API both answer: one method per question, over the projections'
readers and the ledger."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from functools import partial
from typing import TypeVar, overload

import msgspec

from api.services.approvals import HeadApprovals
from api.services.reader import ProjectionReader, View, position_as_of
from api.services.timeline import Timelines
from domain.errors import NotFound
from domain.runner.config import OrchestratorConfig
from domain.siiq.index import IndexDocument, ModelPage, model_page
from domain.state.methodology import Methodology
from domain.state.publication import public_state
from domain.state.records import Authority
from ledger.codec import encode_json
from ledger.ledger import ConsistencyProof, InclusionProof, Ledger
from ledger.tiles import Tile
from projections.methodology import MethodologyProjection
from projections.siiq import Siiq, SiiqProjection, index_document
from projections.siiq_sources import SiiqSourcesProjection, Sources, StatusDocument
from projections.views.agents import AgentsView, agents_view
from projections.views.approved import Approved
from projections.views.cycles import CyclesView, CycleView, cycle_view, cycles_view
from projections.views.disputes import DisputesView, disputes_view
from projections.views.editions import EditionsView, editions_view
from projections.views.evidence import (
    InstructionsView,
    ServedCopy,
    instructions_view,
    served_copy,
)
from projections.views.leaderboard import LeaderboardView, leaderboard_view
from projections.views.methodology import MethodologyView, methodology_view
from projections.views.project import ProjectView, project_view
from projections.views.projects import ProjectsView, projects_view
from projections.views.renders import RendersView, RenderView, render_view, renders_view
from projections.views.reproductions import ReproductionsView, reproductions_view
from projections.views.run import RunView, run_view
from projections.views.siiq_publication import (
    HistoryDocument,
    HoldRow,
    archived_indexes,
    guarded_evidence,
    history_document,
    holds,
    model_history,
    siiq_status,
)
from projections.views.sources import SourcesView, sources_view
from projections.views.trace import TraceBasis, trace_basis


class CheckpointView(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: str
    note: str
    public_key: str
    sealed_at: str


class PublicKeyView(msgspec.Struct, frozen=True, kw_only=True):
    origin: str
    """The first line of every checkpoint: the ledger's identity, which signed actions name."""
    public_key: str


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: str
    size: int


Published = Callable[[int | None], int]
"""For a public read asked as of a position (or of none), the position it answers as of, from
the methodology's approvals: `MethodologyQueries.published_position`."""


def approved_as_of(as_of: int | None, approved: Sequence[int]) -> int:
    """A public read's position: the latest approved by default (0 before any approval), else
    the approved position asked; any other position is not found, and the answer names the
    nearest approved position at or below it (issue 26)."""
    if as_of is None:
        return approved[-1] if approved else 0
    below = bisect_right(approved, as_of)
    if below and approved[below - 1] == as_of:
        return as_of
    if below:
        nearest = f"the nearest at or below it is {approved[below - 1]}"
    else:
        nearest = "none is at or below it" if approved else "none is approved yet"
    raise NotFound(
        f"position {as_of} is not an approved publication position, the only positions the "
        f"public reads as of; {nearest}"
    )


class LedgerQueries:
    """The ledger's size, checkpoints and proofs: of the whole ledger for the operator, or,
    `published` given, of the tree approved for the public (methodology section 1): its size
    is the latest approved position, and no checkpoint or proof is of a larger tree."""

    def __init__(self, ledger: Ledger, published: Published | None = None) -> None:
        self.ledger = ledger
        self.published = published
        self._approved_seen = 0
        """The latest approved position read so far: each approval is above the one before
        (section 1), so a tree up to it is public from then on, asked no more."""

    def health(self) -> Health:
        size = self.ledger.size() if self.published is None else self.published(None)
        return Health(status="ok", size=size)

    def checkpoint(self, size: int | None = None) -> CheckpointView:
        """The checkpoint of `size` (the latest, or the public's at the approved position, by
        default): for the public, of any size up to the approved one, a tree it holds."""
        checkpoint = self.ledger.checkpoint(self._tree(size, least=0))
        return CheckpointView(
            size=checkpoint.size,
            root=checkpoint.root.hex(),
            note=checkpoint.note,
            public_key=str(self.ledger.recorder.sealer.verifier),
            sealed_at=checkpoint.sealed_at,
        )

    def public_key(self) -> PublicKeyView:
        verifier = self.ledger.recorder.sealer.verifier
        return PublicKeyView(origin=verifier.name, public_key=str(verifier))

    def signed_note(self) -> str:
        """tlog-tiles "Checkpoints": the signed note of the latest checkpoint (for the public,
        the one at the latest approved position)."""
        return self.ledger.checkpoint(self._tree(None, least=0)).note

    def tile(self, tile: Tile) -> bytes:
        """tlog-tiles: a hash tile of the tree (for the public, of the approved tree: no hash
        of a node past the latest approved position)."""
        self._tree(tile.leaves, least=1)
        return self.ledger.tile(tile)

    def inclusion(self, position: int, size: int | None = None) -> InclusionProof:
        return self.ledger.inclusion_proof(position, self._tree(size, least=1))

    def consistency(self, first: int, second: int) -> ConsistencyProof:
        return self.ledger.consistency_proof(first, self._tree(second, least=1))

    @overload
    def _tree(self, size: int, *, least: int) -> int: ...

    @overload
    def _tree(self, size: int | None, *, least: int) -> int | None: ...

    def _tree(self, size: int | None, *, least: int) -> int | None:
        """The tree size a read is of: as asked for the operator; for the public the approved
        one by default, and none past it (nor below `least`)."""
        if self.published is None:
            return size
        if size is not None and least <= size <= self._approved_seen:
            return size
        approved = self.published(None)
        self._approved_seen = max(self._approved_seen, approved)
        size = approved if size is None else size
        if least <= size <= approved:
            return size
        if not approved:
            raise NotFound(f"tree size {size} is not public: no position is approved yet")
        raise NotFound(
            f"tree size {size} is not public: the public sees trees of sizes {least} to "
            f"{approved}, the latest approved position"
        )


D = TypeVar("D")


ANSWERING_AS_OF: ContextVar[int | None] = ContextVar("answering_as_of", default=None)
"""The latest approved position as the request being answered first read it (the server's
cache keys its answer by it, api/http/caching.py): the request's reads of the latest approved
position answer as of that one, so its answer is made as of the position it is kept under, and
the database is asked once per request."""


def _authority_copy(state: Methodology, at: int) -> tuple[int, Authority]:
    """The state's authority and its position, copied: it is folded on apart from the state."""
    return at, msgspec.json.decode(encode_json(state.authority), type=Authority)


class MethodologyQueries:
    """The methodology's documents, as of the head (the operator's view), or, `published`, as
    of the latest approved position with what the public may not see left out (methodology
    sections 1, 6 and 18); a public document says what was approved and at which checkpoint."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        published: bool = False,
        config: Callable[[], OrchestratorConfig] | None = None,
        timelines: Timelines | None = None,
    ) -> None:
        """`config`: the orchestrator's configuration in force, for the budgets and the key
        limit the methodology document states (read when first asked, then kept); `timelines`:
        each run's timeline from its stored recording (section 17), in the run document."""
        self.ledger = ledger
        self.published = published
        self.config = config
        self.timelines = timelines
        seen = public_state if published else None
        self.reader = ProjectionReader(ledger, MethodologyProjection(), seen)
        self.approvals = HeadApprovals(ledger, lambda: self.reader.look_held(_authority_copy))

    def _answer(self, key: Hashable, view: View[Methodology, D], as_of: int | None) -> D:
        if not self.published:
            return self.reader.answer(key, view, as_of)
        position = self.published_position(as_of)
        return self.reader.answer(key, partial(self._approved, view), position)

    def _approved(self, view: View[Methodology, D], state: Methodology, at: int) -> D:
        """`view` as of an approved position, naming the signed checkpoint approved there:
        the same bytes whenever it is read, later approvals or not."""
        document = view(state, at)
        if at == 0 or not hasattr(document, "approved"):
            return document
        checkpoint = self.ledger.checkpoint(at)
        approved = Approved(position=at, root=checkpoint.root.hex(), note=checkpoint.note)
        return msgspec.structs.replace(document, approved=approved)  # type: ignore[type-var]

    def leaderboard(self, cycle: str, as_of: int | None = None) -> LeaderboardView:
        view = partial(leaderboard_view, cycle=cycle)
        return self._answer(("leaderboard", cycle), view, as_of)

    def projects(self, as_of: int | None = None) -> ProjectsView:
        return self._answer(("projects",), projects_view, as_of)

    def project(self, project_id: str, as_of: int | None = None) -> ProjectView:
        view = partial(project_view, project_id=project_id)
        return self._answer(("project", project_id), view, as_of)

    def run(self, run_id: str, as_of: int | None = None) -> RunView:
        """The run's document, with its timeline where a store of its evidence is at hand."""
        view = self._answer(("run", run_id), partial(run_view, run_id=run_id), as_of)
        return view if self.timelines is None else self.timelines.attach(view)

    def reproductions(self, run_id: str, as_of: int | None = None) -> ReproductionsView:
        view = partial(reproductions_view, run_id=run_id)
        return self._answer(("reproductions", run_id), view, as_of)

    def renders(self, run_id: str, as_of: int | None = None) -> RendersView:
        """Section 17: the run's renders, each linking back to its evidence."""
        return self._answer(("renders", run_id), partial(renders_view, run_id=run_id), as_of)

    def render(self, run_id: str, number: int, as_of: int | None = None) -> RenderView:
        view = partial(render_view, run_id=run_id, number=number)
        return self._answer(("render", run_id, number), view, as_of)

    def cycles(self, as_of: int | None = None) -> CyclesView:
        return self._answer(("cycles",), cycles_view, as_of)

    def cycle(self, cycle_id: str, as_of: int | None = None) -> CycleView:
        view = partial(cycle_view, cycle_id=cycle_id)
        return self._answer(("cycle", cycle_id), view, as_of)

    def editions(self, as_of: int | None = None) -> EditionsView:
        return self._answer(("editions",), editions_view, as_of)

    def methodology(self, as_of: int | None = None) -> MethodologyView:
        """The rules as the code applies them and the orchestrator is configured, the
        changelog and the source table."""
        config = None if self.config is None else self.config()
        return self._answer(("methodology",), partial(methodology_view, config=config), as_of)

    def sources(self, as_of: int | None = None) -> SourcesView:
        return self._answer(("sources",), sources_view, as_of)

    def agents(self, cycle: str, as_of: int | None = None) -> AgentsView:
        return self._answer(("agents", cycle), partial(agents_view, cycle=cycle), as_of)

    def instructions(self, sha256: str) -> InstructionsView:
        view = partial(instructions_view, sha256=sha256)
        return self._answer(("instructions", sha256), view, None)

    def served_copy(self, run_id: str, kind: str) -> ServedCopy:
        view = partial(served_copy, run_id=run_id, kind=kind)
        return self._answer(("served", run_id, kind), view, None)

    def trace_basis(self, run_id: str) -> TraceBasis:
        return self._answer(("trace", run_id), partial(trace_basis, run_id=run_id), None)

    def disputes(self) -> DisputesView:
        return self._answer(("disputes",), disputes_view, None)

    def state(self) -> Methodology:
        """The folded state at the head, for a caller alone with these queries (a command);
        a server decides through `reader.look`."""
        return self.reader.latest()

    def published_position(self, as_of: int | None = None) -> int:
        """The position a public read as of `as_of` answers as of: the latest approved by
        default (0 before any; the request's, `ANSWERING_AS_OF`, once it has read it), else
        `as_of` when it is an approved position (`approved_as_of`)."""
        answering = ANSWERING_AS_OF.get() if as_of is None else None
        if answering is not None:
            return answering
        return approved_as_of(as_of, self.approvals.positions())


def _documents_position(state: Siiq, position: int) -> int:
    """The position the published documents are as of for a read as of `position`: the one
    before the publication at or before it, the position itself before any."""
    publications = state.guards.publications
    at = bisect_right(publications, position)
    return publications[at - 1] - 1 if at else position


class SiiqQueries:
    """SI-IQ's documents. The index, the evidence and the history are the ones last published
    (section 8: a halted publication leaves the previous online), as of the publication at or
    before the position asked (its documents are as of the position before it); before any
    publication, as of the position itself. The status is live."""

    def __init__(self, ledger: Ledger, published: Published | None = None) -> None:
        self.ledger = ledger
        self.reader: ProjectionReader[Siiq] = ProjectionReader(ledger, SiiqProjection())
        self.sources: ProjectionReader[Sources] = ProjectionReader(ledger, SiiqSourcesProjection())
        self.published = published

    def position(self, as_of: int | None = None) -> int:
        """The position a read answers as of (the public one an approved position only)."""
        if self.published is not None:
            as_of = self.published(as_of)
        return position_as_of(self.ledger.size(), as_of)

    def publication_position(self, as_of: int | None = None) -> int:
        """The position the published documents are as of, for a read as of `as_of`."""
        position = self.position(as_of)
        return self.reader.look(lambda state, _: _documents_position(state, position))

    def index(self, as_of: int | None = None) -> IndexDocument:
        return self.index_at(self.publication_position(as_of))

    def model(self, slug: str, as_of: int | None = None) -> ModelPage:
        return self.model_at(slug, self.publication_position(as_of))

    def evidence(self, as_of: int | None = None) -> bytes:
        return self.evidence_at(self.publication_position(as_of))

    def history(self, as_of: int | None = None) -> HistoryDocument:
        return self.history_at(self.publication_position(as_of))

    def status(self, as_of: int | None = None) -> StatusDocument:
        return self.status_at(self.position(as_of))

    def archive(self, major: int, as_of: int | None = None) -> IndexDocument:
        """/data/archive/{major}/index.json (SI-IQ sections 3 and 11): the last index served
        under an earlier major version; a major version not archived names the ones that are."""
        position = self.position(as_of)
        found = self.reader.look(lambda state, _: archived_indexes(state, position))
        if major not in found:
            listed = ", ".join(str(m) for m in sorted(found)) or "none yet"
            raise NotFound(
                f"no index of major version {major} is archived (an earlier major version's "
                f"last index is); archived major versions: {listed}"
            )
        return self.index_at(found[major])

    def index_at(self, position: int) -> IndexDocument:
        return self.reader.answer(("index",), index_document, position)

    def model_at(self, slug: str, position: int) -> ModelPage:
        page = model_page(self.index_at(position), slug)
        history = model_history(self.history_at(position), slug)
        return msgspec.structs.replace(page, history=history)

    def evidence_at(self, position: int) -> bytes:
        view = lambda sources, state, _: guarded_evidence(sources, state)  # noqa: E731
        return self.reader.answer(("evidence",), self._with_sources(view), position)

    def history_at(self, position: int) -> HistoryDocument:
        return self.reader.answer(("history",), history_document, position)

    def status_at(self, position: int) -> StatusDocument:
        return self.reader.answer(("status",), self._with_sources(siiq_status), position)

    def documents(self, position: int) -> dict[str, bytes]:
        """The four published documents as of `position`, as served (section 8)."""
        return {
            "index": msgspec.json.encode(self.index_at(position)),
            "evidence": self.evidence_at(position),
            "history": msgspec.json.encode(self.history_at(position)),
            "status": msgspec.json.encode(self.status_at(position)),
        }

    def _with_sources(self, view: Callable[[Sources, Siiq, int], D]) -> View[Siiq, D]:
        """`view` of the sources' state and SI-IQ's as of one position, run while neither can
        change (SI-IQ's reader holds its lock, then the sources' reader its own)."""
        return lambda state, at: self.sources.look(lambda sources, _: view(sources, state, at), at)

    def holds(self) -> list[HoldRow]:
        return self.reader.look(lambda state, _: holds(state))
