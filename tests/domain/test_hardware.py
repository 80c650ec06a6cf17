"""The hardware appendix: its table to the decimals it shows, its examples, and `unknown`
wherever an input is missing."""

from __future__ import annotations

import math
from datetime import date

import pytest

from domain import hardware
from domain.hardware import MOST_GB, PRICES_USD, HardwareInputError, estimate, machine

# The appendix's table: weights, context reserve, overhead, needs, VRAM from, unified from.
APPENDIX = {
    "7-8B": (4.89, 1.21, 1, 7.10, 7.10, 9.47),
    "14B": (8.57, 1.34, 1, 10.91, 10.91, 14.54),
    "27-32B": (19.58, 2.15, 1, 22.73, 22.73, 30.30),
    "70B": (42.83, 2.68, 1, 46.51, 46.51, 62.01),
    "120B+": (73.42, 2.95, 1, 77.37, 77.37, 103.16),
}


def test_the_table_reproduces_the_appendix_to_two_decimals() -> None:
    rows = {
        r.size_class: (
            r.weights_gb,
            r.context_reserve_gb,
            r.overhead_gb,
            r.needs_gb,
            r.vram_from_gb,
            r.unified_memory_from_gb,
        )
        for r in hardware.table()
    }
    assert {k: tuple(round(x, 2) for x in v) for k, v in rows.items()} == APPENDIX
    assert [r.model for r in hardware.table()] == [
        "Qwen3-8B",
        "Qwen3-14B",
        "Qwen3-32B",
        "Qwen2.5-72B-Instruct",
        "Mistral-Large-Instruct-2411",
    ]


def test_the_formulas() -> None:
    assert hardware.weight_bytes(70 * 10**9) == pytest.approx(42.826e9)  # "42.8 GB of weights"
    qwen3_8b = hardware.SIZE_CLASSES[0].config
    assert hardware.kv_cache_bytes_per_token(qwen3_8b) == 2 * 36 * 8 * 128 * 2
    assert hardware.context_reserve_bytes(qwen3_8b) == 147_456 * 8_192
    assert hardware.usable_bytes(64, "unified") == 48e9  # AMD: 64 GB allow up to 48 GB
    assert hardware.usable_bytes(128, "system") == 96e9  # and 128 GB up to 96 GB
    assert hardware.usable_bytes(24, "vram") == 24e9
    assert all(c.config.source.startswith("https://huggingface.co/") for c in hardware.SIZE_CLASSES)


@pytest.mark.parametrize(
    ("memory_gb", "kind", "largest"),
    [
        (8, "vram", "7-8B"),  # an 8 GB GPU holds the 7-8B class
        (24, "vram", "27-32B"),  # a 24 GB GPU the 27-32B class
        (64, "unified", "70B"),  # 64 GB of unified memory the 70B class
        (7.09, "vram", None),  # below the first row: no class
        (9.46, "unified", None),
        (9.47, "unified", "7-8B"),
        (128, "unified", "120B+"),
    ],
)
def test_the_largest_class_that_fits(
    memory_gb: float, kind: hardware.MemoryKind, largest: str | None
) -> None:
    result = estimate(machine(memory_gb=memory_gb, memory_kind=kind))
    assert result.largest_class == largest
    fits = [c.fits for c in result.classes]
    assert fits == sorted(fits, reverse=True)  # a class fits only if every smaller one does


def test_the_speed_bound() -> None:
    result = estimate(machine(bandwidth_gbs=546))
    bound = result.classes[0].tokens_per_second_max.value
    assert bound == pytest.approx(546e9 / 4.8944e9)
    assert int(bound) == 111  # "no puede superar unos 111 tokens por segundo"
    assert result.classes[0].tokens_per_second_max.label == "estimated"


def test_missing_inputs_give_unknown_never_a_guess() -> None:
    nothing = estimate(machine())
    assert nothing.usable_memory_gb.value == "unknown"
    assert nothing.largest_class == "unknown"
    assert nothing.memory_per_dollar == "unknown"
    assert {c.fits for c in nothing.classes} == {"unknown"}
    assert {c.tokens_per_second_max.value for c in nothing.classes} == {"unknown"}
    no_kind = estimate(machine(memory_gb=64, bandwidth_gbs=273))
    assert no_kind.largest_class == "unknown"
    assert no_kind.classes[0].tokens_per_second_max.value != "unknown"
    no_bandwidth = estimate(
        machine(memory_gb=64, memory_kind="unified", chip="NVIDIA GeForce RTX 4090 Laptop GPU")
    )
    assert no_bandwidth.largest_class == "70B"
    assert {c.tokens_per_second_max.value for c in no_bandwidth.classes} == {"unknown"}


def test_a_chip_gives_its_reference_rows_bandwidth() -> None:
    result = estimate(machine(chip="apple m4 max (16-core cpu, 40-core gpu)"))
    assert result.machine.bandwidth_gbs == 546
    assert all(c.source.startswith("https://www.") for c in hardware.CHIPS)


def test_memory_per_dollar_with_the_prices_date() -> None:
    result = estimate(
        machine(memory_gb=24, memory_kind="vram", price_usd=1600, price_date=date(2026, 11, 2))
    )
    assert result.memory_per_dollar != "unknown"
    assert result.memory_per_dollar.gb_per_usd.value == 24 / 1600
    assert result.memory_per_dollar.price_date == date(2026, 11, 2)


def test_the_largest_machine_accepted_gives_finite_figures() -> None:
    result = estimate(
        machine(
            memory_gb=MOST_GB,
            memory_kind="system",
            bandwidth_gbs=MOST_GB,
            price_usd=PRICES_USD[0],
            price_date=date(2026, 1, 1),
        )
    )
    assert result.memory_per_dollar != "unknown"
    figures = [result.usable_memory_gb, result.memory_per_dollar.gb_per_usd]
    figures += [c.tokens_per_second_max for c in result.classes]
    assert all(isinstance(f.value, float) and math.isfinite(f.value) for f in figures)
    assert result.largest_class == "120B+"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"memory_gb": -1}, "memory_gb must be a finite number from 0 to 1,000,000, not -1"),
        ({"bandwidth_gbs": float("nan")}, "bandwidth_gbs must be a finite number"),
        ({"memory_gb": float("inf")}, "memory_gb must be a finite number"),
        # Past these every figure would still be a number, but not a finite one (issue 16).
        ({"memory_gb": 1.7976931348623155e308}, "memory_gb must be a finite number from 0"),
        ({"bandwidth_gbs": 1_000_001}, "bandwidth_gbs must be a finite number from 0 to 1,0"),
        (
            {"price_usd": 0, "price_date": date(2026, 1, 1)},
            "price_usd must be a finite number from 0.01 to 1,000,000,000, not 0",
        ),
        ({"price_usd": 5e-324, "price_date": date(2026, 1, 1)}, "price_usd must be a finite"),
        ({"price_usd": 10}, "a price needs its date"),
        ({"bandwidth_gbs": 1, "chip": "NVIDIA GB10"}, "a bandwidth or a chip, not both"),
        ({"chip": "Imaginary X1"}, "no reference row for chip 'Imaginary X1'"),
    ],
)
def test_bad_inputs_are_clear_errors(fields: dict[str, object], message: str) -> None:
    with pytest.raises(HardwareInputError, match=message):
        machine(**fields)  # type: ignore[arg-type]
