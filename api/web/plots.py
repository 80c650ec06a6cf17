"""Plots drawn by matplotlib as SVG on the server (no script, no layout shift): they draw the
numbers of the document the page shows, nothing computed beside them."""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from domain.siiq.index import ModelPage
from domain.siiq.records import AREAS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

POINTS_PER_INCH = 72
AREA_COLOURS = dict(
    zip(AREAS, ("#1f5fa8", "#b5411a", "#2c7a3f", "#7a3d99", "#8a6d00"), strict=True)
)
"""One colour per area, each readable on white (contrast above 4.5:1)."""


def benchmark_plot(page: ModelPage) -> Markup:
    """A model's score on each benchmark as published (a proportion, shown as a percentage),
    one row per benchmark in the order of the page's table, coloured by area."""
    rows = tuple((b.benchmark, b.area, b.score) for b in page.benchmarks)
    svg, width, height = _draw(page.model.slug, rows)
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    alt = (
        f"{page.model.slug}: its score on each of {len(rows)} benchmarks, as published; "
        "the table below gives every value"
    )
    return Markup(
        f'<img class="plot" src="{source}" width="{width}" height="{height}" alt="{escape(alt)}">'
    )


def history_plot(page: ModelPage) -> Markup:
    """The model's history curve: each archived day's SI-IQ with its 90% interval, rescored
    with the parameters in force (/data/history.json)."""
    points = tuple((p.date, p.si_iq, p.si_iq_low, p.si_iq_high) for p in page.history)
    svg, width, height = _draw_history(page.model.slug, points)
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    alt = (
        f"{page.model.slug}: its SI-IQ on each of {len(points)} archived days with its 90% "
        "interval; the table below gives every value"
    )
    return Markup(
        f'<img class="plot" id="history-svg" src="{source}" width="{width}" height="{height}"'
        f' alt="{escape(alt)}">'
    )


def _svg(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


@lru_cache(maxsize=64)
def _draw_history(
    slug: str, points: tuple[tuple[str, int, int, int], ...]
) -> tuple[bytes, int, int]:
    import matplotlib  # noqa: PLC0415

    matplotlib.use("svg")
    from matplotlib.figure import Figure  # noqa: PLC0415

    width, height = 7.0, 2.8
    with matplotlib.rc_context({"svg.hashsalt": "argusic", "svg.fonttype": "none"}):
        figure = Figure(figsize=(width, height), layout="constrained")
        axes = figure.add_subplot()
        days = range(len(points))
        axes.fill_between(
            days,
            [p[2] for p in points],
            [p[3] for p in points],
            color="#c6d8ee",
            label="90% interval",
        )
        axes.plot(days, [p[1] for p in points], "o-", color="#1f5fa8", label="SI-IQ")
        axes.set_xticks(days, labels=[p[0] for p in points], rotation=30, ha="right")
        axes.set_ylabel("SI-IQ")
        axes.grid(axis="y", color="#dddddd")
        axes.set_title(slug, loc="left", fontsize="medium")
        axes.legend(loc="upper left", frameon=False)
        svg = _svg(figure)
    return svg, round(width * POINTS_PER_INCH), round(height * POINTS_PER_INCH)


@lru_cache(maxsize=64)
def _draw(slug: str, rows: tuple[tuple[str, str, float], ...]) -> tuple[bytes, int, int]:
    """The SVG bytes and their size in CSS pixels; the same rows give the same bytes."""
    import matplotlib  # noqa: PLC0415  (slow to import; only model pages need it)

    matplotlib.use("svg")
    from matplotlib.figure import Figure  # noqa: PLC0415
    from matplotlib.ticker import PercentFormatter  # noqa: PLC0415

    width, height = 7.0, 1.6 + 0.3 * max(len(rows), 1)
    with matplotlib.rc_context({"svg.hashsalt": "argusic", "svg.fonttype": "none"}):
        figure = Figure(figsize=(width, height), layout="constrained")
        axes = figure.add_subplot()
        labels = [name for name, _, _ in rows][::-1]
        for position, (_, area, score) in enumerate(reversed(rows)):
            axes.plot([score], [position], "o", color=AREA_COLOURS.get(area, "#333333"))
        axes.set_yticks(range(len(labels)), labels=labels)
        axes.set_xlim(0, 1)
        axes.xaxis.set_major_formatter(PercentFormatter(1.0))
        axes.set_ylim(-0.7, len(labels) - 0.3)
        axes.set_xlabel("score as published (%)")
        axes.grid(axis="x", color="#dddddd")
        axes.set_title(slug, loc="left", fontsize="medium")
        handles = [
            axes.plot([], [], "o", color=colour, label=area)[0]
            for area, colour in AREA_COLOURS.items()
            if any(a == area for _, a, _ in rows)
        ]
        figure.legend(
            handles=handles, loc="outside lower center", ncols=len(handles), frameon=False
        )
        svg = _svg(figure)
    return svg, round(width * POINTS_PER_INCH), round(height * POINTS_PER_INCH)
