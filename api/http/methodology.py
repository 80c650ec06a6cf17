"""The methodology's read API: leaderboards, projects, runs and their traces, editions and the
source table (the same documents as the CLI's --json)."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from api.http.limits import AsOf
from api.http.openapi import READ
from api.services.queries import LedgerQueries, MethodologyQueries
from api.services.trace import TraceView, trace
from api.web import page
from projections.views.agents import AgentsView
from projections.views.cycles import CycleView
from projections.views.editions import EditionsView
from projections.views.leaderboard import LeaderboardView
from projections.views.methodology import MethodologyView
from projections.views.project import ProjectView
from projections.views.projects import ProjectsView
from projections.views.reproductions import ReproductionsView
from projections.views.run import RunView
from projections.views.sources import SourcesView


@get("/leaderboard", sync_to_thread=True, responses=READ, opt=page("leaderboard.html"))
def leaderboard(
    methodology: NamedDependency[MethodologyQueries],
    cycle: FromQuery[str],
    as_of: AsOf = None,
) -> LeaderboardView:
    return methodology.leaderboard(cycle, as_of)


@get("/projects", sync_to_thread=True, responses=READ, opt=page("projects.html"))
def projects(methodology: NamedDependency[MethodologyQueries], as_of: AsOf = None) -> ProjectsView:
    """Every project with a recorded run, its verdict and its attempts."""
    return methodology.projects(as_of)


@get("/projects/{project_id:path}", sync_to_thread=True, responses=READ, opt=page("project.html"))
def project(
    methodology: NamedDependency[MethodologyQueries],
    project_id: FromPath[str],
    as_of: AsOf = None,
) -> ProjectView:
    return methodology.project(project_id.lstrip("/"), as_of)


@get("/cycles/{cycle_id:str}", sync_to_thread=True, responses=READ, opt=page("cycle.html"))
def cycle_pools(
    methodology: NamedDependency[MethodologyQueries],
    cycle_id: FromPath[str],
    as_of: AsOf = None,
) -> CycleView:
    """Section 6: the cycle's public pool at its commits, the secret pool's commitment, and
    once the cycle is closed the secret pool with the commitment checked."""
    return methodology.cycle(cycle_id, as_of)


@get("/runs/{run_id:str}", sync_to_thread=True, responses=READ, opt=page("run.html"))
def run(
    methodology: NamedDependency[MethodologyQueries],
    run_id: FromPath[str],
    as_of: AsOf = None,
) -> RunView:
    return methodology.run(run_id, as_of)


@get(
    "/runs/{run_id:str}/reproductions",
    sync_to_thread=True,
    responses=READ,
    opt=page("reproductions.html"),
)
def run_reproductions(
    methodology: NamedDependency[MethodologyQueries],
    run_id: FromPath[str],
    as_of: AsOf = None,
) -> ReproductionsView:
    """Section 18: the run's reproductions, their outcomes beside its own, and what differed."""
    return methodology.reproductions(run_id, as_of)


@get("/runs/{run_id:str}/trace", sync_to_thread=True, responses=READ)
def run_trace(
    ledger_queries: NamedDependency[LedgerQueries],
    methodology: NamedDependency[MethodologyQueries],
    run_id: FromPath[str],
) -> TraceView:
    return trace(ledger_queries, methodology, run_id)


@get("/methodology/editions", sync_to_thread=True, responses=READ, opt=page("editions.html"))
def editions(methodology: NamedDependency[MethodologyQueries], as_of: AsOf = None) -> EditionsView:
    return methodology.editions(as_of)


@get("/methodology", sync_to_thread=True, responses=READ, opt=page("methodology.html"))
def methodology_page(
    methodology: NamedDependency[MethodologyQueries], as_of: AsOf = None
) -> MethodologyView:
    """The editions and the source-type table as of one position."""
    return methodology.methodology(as_of)


@get("/methodology/sources", sync_to_thread=True, responses=READ, opt=page("sources.html"))
def sources(methodology: NamedDependency[MethodologyQueries], as_of: AsOf = None) -> SourcesView:
    return methodology.sources(as_of)


@get("/agents", sync_to_thread=True, responses=READ, opt=page("agents.html"))
def agents(
    methodology: NamedDependency[MethodologyQueries],
    cycle: FromQuery[str],
    as_of: AsOf = None,
) -> AgentsView:
    """A cycle's roster (models, harnesses, versions, sponsors) and its pool."""
    return methodology.agents(cycle, as_of)


router = Router(
    "/",
    route_handlers=[
        agents,
        leaderboard,
        projects,
        project,
        run,
        run_reproductions,
        cycle_pools,
        run_trace,
        methodology_page,
        editions,
        sources,
    ],
)
