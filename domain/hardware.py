"""Hardware estimates (methodology appendix, "estimaciones de hardware"): which model size
class a machine can hold and how fast it can at most generate, as arithmetic on published
figures. Every figure here is an estimate; none is a measurement."""

from __future__ import annotations

import math
from datetime import date
from typing import Literal

import msgspec

from domain.errors import UsageError

GB = 10**9
"""Bytes per GB, the unit manufacturers use for bandwidth (it understates memory by ~7%)."""
BITS_PER_WEIGHT = 4.8944
"""llama.cpp's Q4_K_M (the README of its quantize tool)."""
CONTEXT_TOKENS = 8_192
BYTES_PER_VALUE = 2
"""16-bit KV cache, llama.cpp's default."""
OVERHEAD_BYTES = 1 * GB
SHARED_MEMORY_SHARE = 0.75
"""Of unified or system memory the model may use 75%; the operating system keeps the rest."""
MOST_GB = 1_000_000
"""The most memory (GB) or bandwidth (GB/s) a machine is taken to have: far past any machine
made, and small enough that every figure worked out from it stays a finite number."""
PRICES_USD = (0.01, 1_000_000_000)
"""A machine's price, a cent to a billion dollars: memory per dollar stays a finite number."""

MemoryKind = Literal["vram", "unified", "system"]
Unknown = Literal["unknown"]
UNKNOWN: Unknown = "unknown"
Label = Literal["estimated", "measured"]
SizeClassName = Literal["7-8B", "14B", "27-32B", "70B", "120B+"]
"""The appendix's size classes, by name: a closed set, so that a document's `largest_class`
(a name, `unknown` or null) matches exactly one of its schema's alternatives."""


class ModelConfig(msgspec.Struct, frozen=True, kw_only=True):
    """The published configuration of the open dense model that stands for a size class."""

    model: str
    layers: int
    kv_heads: int
    head_dim: int
    source: str


class SizeClass(msgspec.Struct, frozen=True, kw_only=True):
    name: SizeClassName
    parameters: int
    """The class's largest size: what fits at it, fits for the whole class."""
    config: ModelConfig


def _size_class(
    name: SizeClassName, billions: int, repo: str, *, layers: int, kv_heads: int
) -> SizeClass:
    """A class at its largest size, with its model's configuration as Hugging Face publishes it
    (`num_hidden_layers`, `num_key_value_heads`; every one of these models has `head_dim` 128)."""
    config = ModelConfig(
        model=repo.split("/")[1],
        layers=layers,
        kv_heads=kv_heads,
        head_dim=128,
        source=f"https://huggingface.co/{repo}/blob/main/config.json",
    )
    return SizeClass(name=name, parameters=billions * 10**9, config=config)


SIZE_CLASSES = (
    _size_class("7-8B", 8, "Qwen/Qwen3-8B", layers=36, kv_heads=8),
    _size_class("14B", 14, "Qwen/Qwen3-14B", layers=40, kv_heads=8),
    _size_class("27-32B", 32, "Qwen/Qwen3-32B", layers=64, kv_heads=8),
    _size_class("70B", 70, "Qwen/Qwen2.5-72B-Instruct", layers=80, kv_heads=8),
    _size_class("120B+", 120, "mistralai/Mistral-Large-Instruct-2411", layers=88, kv_heads=8),
)


class Chip(msgspec.Struct, frozen=True, kw_only=True):
    """One reference row per chip: its bandwidth as its manufacturer publishes it, and where.
    A chip whose manufacturer publishes none has none (never derived from bus width and memory
    speed, never copied from third parties)."""

    name: str
    bandwidth_gbs: float | None
    source: str


CHIPS = (
    Chip(
        name="Apple M4 Max (16-core CPU, 40-core GPU)",
        bandwidth_gbs=546,
        source="https://www.apple.com/macbook-pro/specs/",
    ),
    Chip(name="Apple M4 Pro", bandwidth_gbs=273, source="https://www.apple.com/mac-mini/specs/"),
    Chip(
        name="NVIDIA GB10",
        bandwidth_gbs=273,
        source="https://www.nvidia.com/en-us/products/workstations/dgx-spark/",
    ),
    Chip(
        name="NVIDIA GeForce RTX 4090 Laptop GPU",
        bandwidth_gbs=None,  # the page gives the memory's size and type, not its bandwidth
        source="https://www.nvidia.com/en-us/geforce/laptops/40-series/",
    ),
)


class HardwareInputError(UsageError):
    """An input that is not a quantity the estimate can use."""


def weight_bytes(parameters: int) -> float:
    """Appendix, memory 1: parameters x 4.8944 / 8."""
    return parameters * BITS_PER_WEIGHT / 8


def kv_cache_bytes_per_token(config: ModelConfig) -> int:
    """Appendix, memory 2: 2 x layers x (KV heads x head dimension) x bytes per value."""
    return 2 * config.layers * config.kv_heads * config.head_dim * BYTES_PER_VALUE


def context_reserve_bytes(config: ModelConfig) -> int:
    """Appendix, memory 2: the KV cache of 8,192 tokens."""
    return kv_cache_bytes_per_token(config) * CONTEXT_TOKENS


def needed_bytes(size_class: SizeClass) -> float:
    """Appendix, memory 1 to 3: weights, context reserve and 1 GB of runtime overhead."""
    weights = weight_bytes(size_class.parameters)
    return weights + context_reserve_bytes(size_class.config) + OVERHEAD_BYTES


def usable_bytes(memory_gb: float, kind: MemoryKind) -> float:
    """Appendix, "cuánta memoria cuenta": all dedicated VRAM; 75% of unified or system memory."""
    share = 1.0 if kind == "vram" else SHARED_MEMORY_SHARE
    return memory_gb * GB * share


def tokens_per_second_bound(bandwidth_gbs: float, size_class: SizeClass) -> float:
    """Appendix, speed: every token reads every weight once, so bandwidth / weight bytes."""
    return bandwidth_gbs * GB / weight_bytes(size_class.parameters)


def largest_class_that_fits(usable: float) -> SizeClass | None:
    """Appendix: the largest class whose needs the usable memory covers; none below the first."""
    fitting = [c for c in SIZE_CLASSES if needed_bytes(c) <= usable]
    return fitting[-1] if fitting else None


def memory_per_dollar(memory_gb: float, price_usd: float) -> float:
    """Appendix: GB of memory for the model (VRAM or unified) per dollar of the current price."""
    return memory_gb / price_usd


# --- the estimate of one machine, with what is unknown said so ---


class Figure(msgspec.Struct, frozen=True, kw_only=True):
    """A number and how it was obtained; estimates and measurements never share a field."""

    value: float | Unknown
    label: Label = "estimated"


class ClassEstimate(msgspec.Struct, frozen=True, kw_only=True):
    size_class: SizeClassName
    model: str
    weights_gb: float
    context_reserve_gb: float
    overhead_gb: float
    needs_gb: float
    vram_from_gb: float
    unified_memory_from_gb: float
    fits: bool | Unknown
    tokens_per_second_max: Figure


class PricePerMemory(msgspec.Struct, frozen=True, kw_only=True):
    gb_per_usd: Figure
    price_usd: float
    price_date: date


class Machine(msgspec.Struct, frozen=True, kw_only=True):
    """What is known of a machine: each input may be missing."""

    memory_gb: float | None = None
    memory_kind: MemoryKind | None = None
    bandwidth_gbs: float | None = None
    price_usd: float | None = None
    price_date: date | None = None


class Estimate(msgspec.Struct, frozen=True, kw_only=True):
    machine: Machine
    usable_memory_gb: Figure
    classes: list[ClassEstimate]
    largest_class: SizeClassName | Unknown | None
    """The largest class that fits, None when none does, unknown without the memory inputs."""
    memory_per_dollar: PricePerMemory | Unknown


def machine(
    *,
    memory_gb: float | None = None,
    memory_kind: MemoryKind | None = None,
    bandwidth_gbs: float | None = None,
    chip: str | None = None,
    price_usd: float | None = None,
    price_date: date | None = None,
) -> Machine:
    """A machine from what is known of it; a chip gives its reference row's bandwidth (none if
    its manufacturer publishes none). A quantity that is not a number within its range
    (`MOST_GB`, `PRICES_USD`), a price without its date, or both a bandwidth and a chip, are
    refused."""
    if chip is not None:
        if bandwidth_gbs is not None:
            raise HardwareInputError("give a bandwidth or a chip, not both")
        bandwidth_gbs = reference_chip(chip).bandwidth_gbs
    _quantity("memory_gb", memory_gb, 0, MOST_GB)
    _quantity("bandwidth_gbs", bandwidth_gbs, 0, MOST_GB)
    _quantity("price_usd", price_usd, *PRICES_USD)
    if (price_usd is None) != (price_date is None):
        raise HardwareInputError("a price needs its date, and a date its price")
    return Machine(
        memory_gb=memory_gb,
        memory_kind=memory_kind,
        bandwidth_gbs=bandwidth_gbs,
        price_usd=price_usd,
        price_date=price_date,
    )


def _quantity(name: str, value: float | None, least: float, most: float) -> None:
    if value is not None and not (math.isfinite(value) and least <= value <= most):
        raise HardwareInputError(
            f"{name} must be a finite number from {least:,} to {most:,}, not {value}"
        )


def table() -> list[ClassEstimate]:
    """The appendix's table: every class's needs, with nothing known of a machine."""
    return estimate(Machine()).classes


def estimate(machine: Machine) -> Estimate:
    """Appendix: every class against the machine; a figure whose inputs are missing is unknown."""
    usable = (
        None
        if machine.memory_gb is None or machine.memory_kind is None
        else usable_bytes(machine.memory_gb, machine.memory_kind)
    )
    largest = None if usable is None else largest_class_that_fits(usable)
    return Estimate(
        machine=machine,
        usable_memory_gb=Figure(value=UNKNOWN if usable is None else usable / GB),
        classes=[_class_estimate(c, usable, machine.bandwidth_gbs) for c in SIZE_CLASSES],
        largest_class=UNKNOWN if usable is None else (largest.name if largest else None),
        memory_per_dollar=_per_dollar(machine),
    )


def _class_estimate(
    size_class: SizeClass, usable: float | None, bandwidth_gbs: float | None
) -> ClassEstimate:
    needs = needed_bytes(size_class)
    return ClassEstimate(
        size_class=size_class.name,
        model=size_class.config.model,
        weights_gb=weight_bytes(size_class.parameters) / GB,
        context_reserve_gb=context_reserve_bytes(size_class.config) / GB,
        overhead_gb=OVERHEAD_BYTES / GB,
        needs_gb=needs / GB,
        vram_from_gb=needs / GB,
        unified_memory_from_gb=needs / SHARED_MEMORY_SHARE / GB,
        fits=UNKNOWN if usable is None else needs <= usable,
        tokens_per_second_max=Figure(
            value=UNKNOWN
            if bandwidth_gbs is None
            else tokens_per_second_bound(bandwidth_gbs, size_class)
        ),
    )


def _per_dollar(machine: Machine) -> PricePerMemory | Unknown:
    if machine.memory_gb is None or machine.price_usd is None or machine.price_date is None:
        return UNKNOWN
    return PricePerMemory(
        gb_per_usd=Figure(value=memory_per_dollar(machine.memory_gb, machine.price_usd)),
        price_usd=machine.price_usd,
        price_date=machine.price_date,
    )


def reference_chip(name: str) -> Chip:
    """The reference row of a chip, by its name (case aside)."""
    for row in CHIPS:
        if row.name.lower() == name.lower():
            return row
    known = "; ".join(c.name for c in CHIPS)
    raise HardwareInputError(f"no reference row for chip {name!r} (known: {known})")
