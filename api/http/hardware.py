"""The hardware appendix over HTTP: the table and an estimate for one machine."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from litestar import Router, get
from litestar.params import FromQuery

from api.http.limits import bounded
from api.http.openapi import problems
from domain import hardware

Amount = Annotated[float | None, bounded(0, hardware.MOST_GB)]
"""Memory (GB) or bandwidth (GB/s), within the range the estimate takes (documented)."""
Price = Annotated[float | None, bounded(*hardware.PRICES_USD)]


@get("/hardware/table", sync_to_thread=False, responses=problems())
def hardware_table() -> list[hardware.ClassEstimate]:
    """The appendix's table: what each model size class needs (estimated)."""
    return hardware.table()


@get("/hardware/estimate", sync_to_thread=False, responses=problems())
def hardware_estimate(
    *,
    memory_gb: Amount = None,
    memory_kind: FromQuery[hardware.MemoryKind | None] = None,
    bandwidth_gbs: Amount = None,
    chip: FromQuery[str | None] = None,
    price_usd: Price = None,
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


router = Router("/", route_handlers=[hardware_table, hardware_estimate])
