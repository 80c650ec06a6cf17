"""The pages' template engine: Jinja2 with autoescaping and strict undefined names (a template
that names something its document lacks fails loudly), the filters that format a figure for
reading (never compute one), and the few helpers pages call."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from litestar import Request
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig

from api.services.ports import EvidenceStore
from api.web.plots import benchmark_plot, history_plot
from domain.spread import UNSTABLE_ABOVE

TEMPLATES = Path(__file__).parent / "templates"
LOG_SHOWN_BYTES = 256 * 1024
"""How much of a served log a run page shows inline; the whole log is one link away."""

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def fixed(value: float | None, digits: int = 1) -> str:
    """A figure for reading: `digits` decimals; the exact value stays in the JSON."""
    return "none" if value is None else f"{value:.{digits}f}"


def plain(value: float) -> str:
    """A quantity as short as it is exact enough: 90.0 as 90, 0.5 as 0.5."""
    return f"{value:g}"


def percent(value: float) -> str:
    """A fraction from 0 to 1 for reading, as a percentage with one decimal."""
    return f"{value:.1%}"


def shown_text(raw: bytes) -> str:
    """Served log text as a page can carry it: UTF-8 (undecodable bytes replaced), line ends
    as newlines, other control characters as their visible pictures (U+2400 and on), since
    HTML cannot carry them."""
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _CONTROLS.sub(lambda m: _picture(ord(m[0])), text)


def _picture(code: int) -> str:
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def served_text(
    store: EvidenceStore, sha256: str, limit: int = LOG_SHOWN_BYTES
) -> Mapping[str, Any]:
    """The first `limit` bytes of a served file as text, and whether there is more."""
    taken = bytearray()
    more = False
    for chunk in store.read(sha256):
        taken += chunk
        if len(taken) > limit:
            more = True
            break
    return {"text": shown_text(bytes(taken[:limit])), "more": more}


def with_query(request: Request[Any, Any, Any], **changes: str) -> str:
    """This page's path and query with some parameters changed (the JSON link of a page)."""
    query = {k: v for k, v in request.query_params.items() if k not in changes} | changes
    return f"{quote(request.url.path)}?{urlencode(query)}"  # the path as decoded, encoded again


def environment(store: EvidenceStore) -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters["fixed"] = fixed
    env.filters["percent"] = percent
    env.filters["plain"] = plain
    env.globals["served_text"] = partial(served_text, store)
    env.globals["with_query"] = with_query
    env.globals["benchmark_plot"] = benchmark_plot
    env.globals["history_plot"] = history_plot
    # the spread rule's threshold, where a page names it beside a document that does not carry
    # it (the methodology document does): the constant `is_unstable` applies (section 10)
    env.globals["unstable_above"] = plain(float(UNSTABLE_ABOVE))
    return env


def template_config(store: EvidenceStore) -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment(store)))
