"""SI-IQ section 8: "Antes de publicar, el sitio se comprueba automáticamente: cada página se
analiza sin errores, los enlaces internos y las referencias a las versiones en otros idiomas
se resuelven". The pages a publication would put online (the index, each model's page, the
status) are rendered from its documents with the site's own templates, parsed with the HTML
standard's parsing algorithm (html5lib, strict: the first parse error fails the page), and
every internal link resolved: to one of those pages, to a path the site serves whatever the
data, to a static file, or, for a fragment, to an element of its page. The site has one
language, so no page names a version in another (a `hreflang` would be checked as a link)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

import html5lib
from html5lib.html5parser import ParseError
from jinja2 import Environment

from api.services.queries import SiiqQueries

LINKING = ("href", "src")


class _Url(NamedTuple):
    path: str


class PageAddress(NamedTuple):
    """What the templates read of the request a page answers: its path, and no query."""

    url: _Url
    query_params: Mapping[str, str]


class SiteCheck:
    """Called with the SI-IQ queries and the position a publication would be as of: the
    first problem found, or None."""

    def __init__(
        self, templates: Environment, fixed_paths: Collection[str], static: Mapping[str, Path]
    ) -> None:
        self.templates = templates
        self.fixed_paths = frozenset(fixed_paths)
        self.static = dict(static)

    def __call__(self, queries: SiiqQueries, position: int) -> str | None:
        pages = dict(self.pages(queries, position))
        parsed = {}
        for path, html in pages.items():
            parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
            try:
                parsed[path] = parser.parse(html)
            except ParseError as e:
                return f"page {path} does not parse: {_where(parser)}{e}"
        for path, tree in parsed.items():
            ids = {element.get("id") for element in tree.iter()}
            for link in internal_links(tree):
                if not self.resolves(link, pages, ids):
                    return f"page {path} links to {link}, which does not resolve"
        return None

    def pages(self, queries: SiiqQueries, position: int) -> Iterator[tuple[str, str]]:
        index = queries.index_at(position)
        yield "/siiq", self.render("siiq_index.html", "/siiq", index)
        for model in index.models:
            path = f"/siiq/models/{model.slug}"
            yield path, self.render("siiq_model.html", path, queries.model_at(model.slug, position))
        yield "/status", self.render("status.html", "/status", queries.status_at(position))

    def render(self, template: str, path: str, document: object) -> str:
        address = PageAddress(_Url(path), {})
        return self.templates.get_template(template).render(doc=document, request=address)

    def resolves(self, link: str, pages: Mapping[str, str], ids: Collection[str | None]) -> bool:
        """Whether a link names something the site serves (a link with a space in it names
        nothing: a browser would have to guess its address)."""
        if any(c.isspace() for c in link):
            return False
        parts = urlsplit(link)
        path = unquote(parts.path)
        if not path:
            return parts.fragment in ids
        if path in pages or path in self.fixed_paths:
            return True
        for prefix, folder in self.static.items():
            if path.startswith(prefix + "/"):
                file = (folder / path[len(prefix) + 1 :]).resolve()
                return file.is_relative_to(folder.resolve()) and file.is_file()
        return False


def internal_links(tree: Any) -> Iterator[str]:
    """Every link of a page that stays on the site: a path, a query or a fragment (a scheme
    or a host leaves it; `data:` is no link)."""
    for element in tree.iter():
        for attribute in LINKING:
            value = element.get(attribute)
            if value is None:
                continue
            parts = urlsplit(value)
            if not parts.scheme and not parts.netloc:
                yield value


def _where(parser: Any) -> str:
    if not parser.errors:
        return ""
    (line, column), *_ = parser.errors[0]
    return f"line {line}, column {column}: "
