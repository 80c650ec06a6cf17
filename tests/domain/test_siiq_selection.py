"""SI-IQ section 1: which score and which model."""

from __future__ import annotations

from collections.abc import Sequence

from domain.siiq.selection import ProviderRun, median_provider, same_product, without_run_setting


def provider_score(runs: Sequence[ProviderRun], questions: int) -> float | None:
    found = median_provider(runs, questions)
    return None if found is None else found.score


def run(provider: str, score: float, attempted: int, own: bool = False) -> ProviderRun:
    return ProviderRun(provider, score, questions_attempted=attempted, runs=1, own_hosting=own)


def test_the_median_provider_among_those_covering_95_percent() -> None:
    runs = [run("a", 0.70, 198), run("b", 0.60, 190), run("c", 0.80, 197), run("d", 0.10, 150)]
    assert provider_score(runs, questions=198) == 0.70  # d covers 76%: left out; median of 3


def test_an_even_count_takes_the_lower_middle_value() -> None:
    runs = [run("a", 0.70, 198), run("b", 0.60, 198), run("c", 0.80, 198), run("d", 0.65, 198)]
    assert provider_score(runs, questions=198) == 0.65


def test_the_developers_own_hosting_alone_when_it_covers() -> None:
    runs = [run("a", 0.70, 198), run("own", 0.55, 198, own=True), run("c", 0.80, 198)]
    assert provider_score(runs, questions=198) == 0.55


def test_the_median_is_one_providers_row_as_published() -> None:
    runs = [run("a", 0.70, 198), run("b", 0.60, 198), run("c", 0.65, 150), run("d", 0.9, 198)]
    assert median_provider(runs, questions=198) is runs[0]  # a, not a mean of a and b


def test_coverage_is_averaged_over_runs() -> None:
    runs = [ProviderRun("a", 0.7, questions_attempted=370, runs=2, own_hosting=False)]
    assert provider_score(runs, questions=198) is None  # 185 a run, under 95% of 198 (188.1)


def test_product_tiers_are_separate_models() -> None:
    assert same_product("gpt-5-2025-08-07", "GPT-5")
    assert not same_product("gpt-5-mini-2025-08-07", "GPT-5")
    assert not same_product("Qwen2.5-VL-72B", "Qwen2.5-72B")
    assert same_product("o3-pro", "o3 Pro")


def test_run_settings_are_removed_before_matching() -> None:
    assert without_run_setting("Claude Opus 4.1 (high)") == "Claude Opus 4.1"
    assert without_run_setting("GPT-5 (32K)") == "GPT-5"
    assert without_run_setting("Gemini 2.5 Pro") == "Gemini 2.5 Pro"
