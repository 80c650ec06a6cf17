"""SI-IQ section 8: "Antes de publicar, el sitio se comprueba automáticamente: cada página se
analiza sin errores, los enlaces internos [...] se resuelven". The pages a publication would put
online are rendered with the site's templates and checked; one that fails halts the publication
(the previous stays online), whatever a person released."""

from __future__ import annotations

import pytest
from jinja2 import ChoiceLoader, DictLoader

from api.http import site_check
from api.services.queries import SiiqQueries
from api.web.site_check import SiteCheck
from api.web.templating import TEMPLATES
from domain.events import OperatorNotified, PublicationHalted, SiiqPublished
from domain.events.operators import ReleaseHold
from projections.siiq import PUBLICATION_HOLD
from tests.api.siiq.conftest import World

MODEL_PAGE = (TEMPLATES / "siiq_model.html").read_text()


def check_with(world: World, **templates: str) -> SiteCheck:
    """The site's check, with some templates replaced."""
    check = site_check(world.argusic)
    check.templates.loader = ChoiceLoader([DictLoader(templates), check.templates.loader])
    return check


def problem_now(world: World, check: SiteCheck) -> str | None:
    return check(SiiqQueries(world.ledger), world.ledger.size())


def test_every_page_of_a_publication_parses_and_its_links_resolve(world: World) -> None:
    world.site = site_check(world.argusic)
    world.hour()
    assert world.events(SiiqPublished)
    assert world.events(PublicationHalted) == []
    pages = dict(world.site.pages(SiiqQueries(world.ledger), world.ledger.size()))
    models = [m["slug"] for m in world.index()["models"]]
    assert sorted(pages) == sorted(["/siiq", "/status", *(f"/siiq/models/{m}" for m in models)])


def test_a_page_that_does_not_parse_halts_publication_even_when_released(world: World) -> None:
    world.hour()
    published = len(world.events(SiiqPublished))
    broken = MODEL_PAGE.replace("{% block main %}", "{% block main %}</section>", 1)
    world.site = check_with(world, **{"siiq_model.html": broken})
    report = world.hour()
    assert report.publication is not None
    assert report.publication.reason
    assert report.publication.reason.startswith("page /siiq/models/")
    assert report.publication.reason.endswith(
        "does not parse: line 24, column 10: End tag (section) seen too early. "
        "Expected other end tag."
    )
    [halt] = world.events(PublicationHalted)
    assert halt.reason == report.publication.reason
    assert [n.subject for n in world.events(OperatorNotified)] == ["publication"]
    world.sign(ReleaseHold(hold=PUBLICATION_HOLD, note="looked at it"))
    world.hour()
    assert len(world.events(SiiqPublished)) == published  # the previous stays online
    world.site = site_check(world.argusic)  # the template mended
    world.hour()
    assert len(world.events(SiiqPublished)) == published + 1


@pytest.mark.parametrize(
    ("link", "resolves"),
    [
        ("/siiq", True),
        ("/data/history.json?format=json", True),
        ("/ledger/checkpoint", True),
        ("/static/site/site.css", True),
        ("#main", True),
        ("https://epoch.ai/data", True),  # leaves the site: not checked
        ("/siiq/models/Model%20A", True),
        ("/siiq/models/Model A", False),  # a space: no address
        ("/siiq/models/no-such-model", False),
        ("/runs/r-1", False),  # a path of the site only for the runs it has: not this check's
        ("/nowhere", False),
        ("/static/site/missing.css", False),
        ("/static/site/../templating.py", False),
        ("#no-such-id", False),
    ],
)
def test_an_internal_link_resolves_to_a_page_a_path_or_a_file(
    world: World, link: str, resolves: bool
) -> None:
    world.hour()
    linked = MODEL_PAGE.replace("{% block main %}", f'{{% block main %}}<a href="{link}">x</a>', 1)
    problem = problem_now(world, check_with(world, **{"siiq_model.html": linked}))
    if resolves:
        assert problem is None
    else:
        assert problem is not None
        assert problem.endswith(f"links to {link}, which does not resolve")
