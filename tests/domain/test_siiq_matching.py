"""SI-IQ section 1, "Qué modelo", one test per rule, on the real names of reference/data."""

from __future__ import annotations

import csv
from datetime import date
from functools import cache
from pathlib import Path

import pytest

from domain.siiq.benchmark_sources import GROUP_COLUMNS
from domain.siiq.matching import (
    Alias,
    Match,
    Version,
    epoch_groups,
    epoch_versions,
    latest_aliases,
    name_key,
    other_source_names,
    pinned_reference_versions,
    run_setting_removed,
    trimmed,
    version_numbers,
    versions_and_products_agree,
    without_namespace,
)
from domain.siiq.reference_group import REFERENCE_GROUP
from domain.siiq.scores import Eligibility, is_ranked
from tests.reference import EPOCH_APR as APR
from tests.reference import EPOCH_JAN as JAN

THINKING = "Qwen3-235B-A22B-Thinking (Jul 2025)"
MERGED = "Qwen3-235B-A22B (Jul 2025)"


@cache
def export(folder: Path) -> tuple[Version, ...]:
    with (folder / "epoch_capabilities_index.csv").open(encoding="utf-8-sig", newline="") as f:
        return tuple(epoch_versions(csv.DictReader(f), GROUP_COLUMNS))


@cache
def groups(aliases: tuple[Alias, ...] = ()) -> dict[str, Match]:
    return epoch_groups([export(JAN), export(APR)], REFERENCE_GROUP, aliases)


def test_trimmed() -> None:
    versions = {v.version: v for v in export(APR)}
    assert "Llama-2-70b-hf" in versions  # published as "Llama-2-70b-hf "
    assert versions["gpt-5.3-codex"].group == "GPT-5.3 Codex"  # published as "GPT-5.3 Codex\n"
    assert trimmed(" GPT-5.3 Codex\n") == "GPT-5.3 Codex"
    assert "Llama-2-70b-hf " not in versions


def test_same_product_a_version_filed_under_another_products_group_waits() -> None:
    found = groups()
    assert found["gpt-5-2025-08-07_high"].group == "GPT-5"
    assert found["gpt-5-mini-2025-08-07_high"].group == "GPT-5 mini"
    assert found["Qwen2.5-VL-72B-Instruct"].group is None  # filed under Qwen2.5-72B
    assert "vl" in found["Qwen2.5-VL-72B-Instruct"].reason
    assert found["kimi-k2-thinking-turbo"].group is None  # filed under Kimi K2 Thinking
    # "_max" is Epoch's run setting (the effort), not the product word of "Qwen3-Max":
    assert found["claude-opus-4-6_max"].group == "Claude Opus 4.6"


def test_run_setting_removed() -> None:
    assert run_setting_removed("gpt-5 (high)") == "gpt-5"  # Aider
    assert run_setting_removed("o3-mini (medium)") == "o3-mini"
    assert run_setting_removed("claude-3-7-sonnet-20250219 (32k thinking tokens)") == (
        "claude-3-7-sonnet-20250219"
    )
    assert run_setting_removed("claude-opus-4-20250514 (no think)") == "claude-opus-4-20250514"
    assert run_setting_removed("Claude-Opus-4-5-20251101 (FC)") == "Claude-Opus-4-5-20251101"
    # Not explicit run settings: a date, a product mode, two settings at once.
    assert run_setting_removed("DeepSeek V3 (0324)") == "DeepSeek V3 (0324)"
    assert run_setting_removed("DeepSeek-V3.2-Exp (Reasoner)") == "DeepSeek-V3.2-Exp (Reasoner)"
    assert run_setting_removed("GLM-4.6 (FC thinking)") == "GLM-4.6 (FC thinking)"


def test_version_numbers() -> None:
    assert version_numbers("claude-3-7-sonnet-20250219") == version_numbers("Claude 3.7 Sonnet")
    assert version_numbers("DeepSeek-V3-0324") == version_numbers("DeepSeek-V3 (Mar 2025)") == (3,)
    assert version_numbers("gemini-2.5-pro-preview-06-05") == (2, 5)
    assert version_numbers("Qwen3-235B-A22B-Thinking-2507") == (3, 235, 22)
    assert version_numbers("Mixtral-8x22B-Instruct-v0.1") == (8, 22, 0, 1)


def test_versions_and_products_agree() -> None:
    assert versions_and_products_agree("claude-opus-4-20250514", "Claude Opus 4")
    assert not versions_and_products_agree("gpt-4.1", "GPT-4")
    assert not versions_and_products_agree("gpt-4.1-mini", "GPT-4.1")
    assert not versions_and_products_agree("Mixtral-8x22B-Instruct-v0.1", "Mixtral 8x22B")
    assert not versions_and_products_agree("qwen-max-2025-01-25", "Qwen2.5-Max")


def test_name_key_ignores_case_and_separators_only() -> None:
    assert name_key("Qwen3 32B") == name_key("Qwen3-32B") == name_key(" qwen3_32b ")
    assert name_key("GPT-4.1") != name_key("GPT-4")


def test_other_source_names_match_exactly_after_the_run_setting() -> None:
    aider = [
        "gpt-5 (high)",
        "gpt-5 (low)",
        "Qwen3 32B",
        "claude-opus-4-20250514 (32k thinking)",
        "o3-mini (high)",
        "gpt-4.1-mini",
        "DeepSeek V3 (0324)",
        "Qwen3 235B A22B diff, no think, Alibaba API",
        "DeepSeek R1 + claude-3-5-sonnet-20241022",
        "qwen-max-2025-01-25",
    ]
    found = other_source_names("aider", aider, groups(), ())
    assert {n: m.group for n, m in found.items()} == {
        "gpt-5 (high)": "GPT-5",
        "gpt-5 (low)": "GPT-5",
        "Qwen3 32B": "Qwen3-32B",
        "claude-opus-4-20250514 (32k thinking)": "Claude Opus 4",
        "o3-mini (high)": "o3-mini",
        "gpt-4.1-mini": "GPT-4.1 mini",
        # Wait until a maintainer confirms them:
        "DeepSeek V3 (0324)": None,
        "Qwen3 235B A22B diff, no think, Alibaba API": None,
        "DeepSeek R1 + claude-3-5-sonnet-20241022": None,
        "qwen-max-2025-01-25": None,  # version numbers differ from Qwen2.5-Max's
    }
    assert "differ" in found["qwen-max-2025-01-25"].reason
    bfcl = other_source_names("bfcl", ["Llama-4-Scout-17B-16E-Instruct (FC)"], groups(), ())
    assert bfcl["Llama-4-Scout-17B-16E-Instruct (FC)"].group is None  # 17, 16 are not Scout's


def test_pinned_reference_versions_keep_the_qwen3_235b_split() -> None:
    assert THINKING not in {v.group for v in export(APR)}  # merged away by Epoch in April
    pins = pinned_reference_versions([export(JAN), export(APR)], REFERENCE_GROUP)
    assert pins == {
        THINKING: {
            "Qwen3-235B-A22B-Thinking-2507",
            "Qwen/Qwen3-235B-A22B-Thinking-2507",
            "chutes/Qwen3-235B-A22B-Thinking-2507",
        }
    }
    found = groups()
    assert found["Qwen3-235B-A22B-Thinking-2507"].group == THINKING
    assert found["Qwen3-235B-A22B-Instruct-2507"].group == MERGED  # two models, not one
    # New in April and filed in the merged group: it cannot be told apart, so it waits.
    assert found["qwen/qwen3-235b-a22b-thinking-2507"].group is None
    # Read with the April export alone, the two would be one model.
    alone = epoch_groups([export(APR)], REFERENCE_GROUP, ())
    assert alone["Qwen3-235B-A22B-Thinking-2507"].group == MERGED


def test_an_approved_alias_confirms_a_waiting_name() -> None:
    alias = Alias(
        source="epoch",
        name="qwen/qwen3-235b-a22b-thinking-2507",
        group=THINKING,
        justification="the Thinking-2507 weights, as its name and release date say",
    )
    assert groups((alias,))["qwen/qwen3-235b-a22b-thinking-2507"].group == THINKING
    aider = Alias(
        source="aider",
        name="DeepSeek V3 (0324)",
        group="DeepSeek-V3 (Mar 2025)",
        justification="Aider's run of deepseek-chat on 2025-03-24",
    )
    found = other_source_names("aider", ["DeepSeek V3 (0324)"], groups(), [aider])
    assert found["DeepSeek V3 (0324)"].group == "DeepSeek-V3 (Mar 2025)"


def test_latest_aliases_a_rematched_name_drops_its_old_mapping() -> None:
    first = Alias(source="arena", name="gpt-5-chat", group="GPT-5", justification="a")
    second = Alias(source="arena", name="gpt-5-chat", group="", justification="not GPT-5")
    assert other_source_names("arena", ["gpt-5-chat"], groups(), [])["gpt-5-chat"].group == "GPT-5"
    assert latest_aliases([first, second], "arena") == {"gpt-5-chat": second}
    found = other_source_names("arena", ["gpt-5-chat"], groups(), [first, second])
    assert found["gpt-5-chat"].group is None  # everywhere it is read, history included


def test_versions_released_more_than_60_days_apart_are_shown_not_ranked() -> None:
    versions = {v.version: v for v in export(APR)}
    grok = [v for v in versions.values() if v.group == "Grok-3 mini"]
    days = sorted({v.released for v in grok if v.released})
    assert days[0] == date(2025, 4, 9)
    assert days[-1] == date(2025, 6, 24)  # 76 days apart
    spread = Eligibility(families=6, areas=3, evaluators=2, released=[days[0], days[-1]])
    assert not is_ranked(spread)
    assert is_ranked(spread._replace(released=[days[-1], days[-1]]))


@pytest.mark.parametrize("name", ["", "   "])
def test_blank_names_match_nothing(name: str) -> None:
    assert other_source_names("bfcl", [name], groups(), ()) == {}


def test_without_namespace_an_openrouter_permaslug_matches_by_its_model_name() -> None:
    names = [
        "meta-llama/llama-4-maverick",  # no author in Epoch's names: matched without it
        "openai/gpt-oss-120b",  # an Epoch version carries the author: matched as written
        "anthropic/claude-4.5-sonnet-20250929",  # OpenRouter's spelling: no such name, waits
    ]
    found = other_source_names("openrouter", names, groups(), ())
    assert found["meta-llama/llama-4-maverick"].group == "Llama 4 Maverick"
    assert found["openai/gpt-oss-120b"].group == "gpt-oss-120b"
    assert found["anthropic/claude-4.5-sonnet-20250929"].group is None
    assert without_namespace("openai/gpt-5-2025-08-07") == "gpt-5-2025-08-07"
    assert without_namespace("gpt-5") == "gpt-5"
