"""The home page: what Argusic and SI-IQ are, the current leaderboard, and where to go."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency

from api.http.openapi import problems
from api.services.home import HomeView, home
from api.services.queries import MethodologyQueries, SiiqQueries
from api.web import page


@get("/", sync_to_thread=True, responses=problems(503), opt=page("home.html"))
def home_page(
    methodology: NamedDependency[MethodologyQueries], siiq: NamedDependency[SiiqQueries]
) -> HomeView:
    return home(methodology, siiq)


router = Router("/", route_handlers=[home_page])
