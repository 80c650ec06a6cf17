"""`argusic hardware table | estimate | chips` (methodology appendix, hardware estimates)."""

from __future__ import annotations

from datetime import datetime

import click

from api.cli.output import emit, json_option
from domain import hardware
from domain.hardware import ClassEstimate, Estimate, Figure


@click.group("hardware")
def hardware_group() -> None:
    """Hardware estimates: which model size fits and how fast it can at most generate."""


def _number(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:.2f}"


def _figure(figure: Figure) -> str:
    return f"{_number(figure.value)} ({figure.label})"


def _table_human(rows: list[ClassEstimate]) -> str:
    lines = ["class    weights  context  overhead  needs   VRAM from  unified from"]
    lines += [
        f"{r.size_class:8} {r.weights_gb:7.2f}  {r.context_reserve_gb:7.2f}  {r.overhead_gb:8.2f}"
        f"  {r.needs_gb:6.2f}  {r.vram_from_gb:9.2f}  {r.unified_memory_from_gb:12.2f}"
        for r in rows
    ]
    return "\n".join([*lines, "GB = 10^9 bytes; estimated, never measured"])


@hardware_group.command("table")
@json_option
def table_command(as_json: bool) -> None:
    """The appendix's table: what each size class needs."""
    emit(hardware.table(), _table_human)


def _estimate_human(result: Estimate) -> str:
    lines = [f"usable memory: {_figure(result.usable_memory_gb)} GB"]
    lines += [
        f"  {c.size_class:8} needs {c.needs_gb:6.2f} GB  fits {c.fits!s:7}  "
        f"at most {_figure(c.tokens_per_second_max)} tokens/s"
        for c in result.classes
    ]
    largest = result.largest_class or "none"
    lines.append(f"largest class that fits: {largest}")
    if isinstance(result.memory_per_dollar, str):
        lines.append("memory per dollar: unknown")
    else:
        price = result.memory_per_dollar
        lines.append(
            f"memory per dollar: {_figure(price.gb_per_usd)} GB/USD"
            f" (USD {price.price_usd:.2f} on {price.price_date})"
        )
    return "\n".join(lines)


@hardware_group.command("estimate")
@click.option("--memory-gb", type=float, help="VRAM, or unified or system memory, in GB (10^9)")
@click.option("--memory-kind", type=click.Choice(["vram", "unified", "system"]))
@click.option("--bandwidth-gbs", type=float, help="the chip's published memory bandwidth")
@click.option("--chip", help="take the bandwidth from the chip's reference row (see `chips`)")
@click.option("--price-usd", type=float, help="the current price, with --price-date")
@click.option("--price-date", type=click.DateTime(formats=["%Y-%m-%d"]))
@json_option
def estimate_command(
    *,
    memory_gb: float | None,
    memory_kind: hardware.MemoryKind | None,
    bandwidth_gbs: float | None,
    chip: str | None,
    price_usd: float | None,
    price_date: datetime | None,
    as_json: bool,
) -> None:
    """Every class against one machine; what depends on a missing input is `unknown`."""
    machine = hardware.machine(
        memory_gb=memory_gb,
        memory_kind=memory_kind,
        bandwidth_gbs=bandwidth_gbs,
        chip=chip,
        price_usd=price_usd,
        price_date=price_date.date() if price_date else None,
    )
    emit(hardware.estimate(machine), _estimate_human)


@hardware_group.command("chips")
@json_option
def chips_command(as_json: bool) -> None:
    """The chips' reference rows: bandwidth as the manufacturer publishes it, and where."""
    emit(
        list(hardware.CHIPS),
        lambda rows: "\n".join(
            f"{c.name:42} {_number(c.bandwidth_gbs) if c.bandwidth_gbs else 'none':>8}  {c.source}"
            for c in rows
        ),
    )
