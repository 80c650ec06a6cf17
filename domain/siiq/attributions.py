"""SI-IQ section 10: the attribution each source requires, shown on every file that shows its
numbers."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec


class Attribution(msgspec.Struct, frozen=True, kw_only=True):
    source: str
    text: str
    licence: str
    url: str


ATTRIBUTIONS: dict[str, Attribution] = {
    a.source: a
    for a in (
        Attribution(
            source="aider",
            text="Aider polyglot leaderboard data (Apache-2.0)",
            licence="Apache-2.0",
            url="https://aider.chat/docs/leaderboards/",
        ),
        Attribution(
            source="arena",
            text="Arena leaderboard dataset on Hugging Face (CC BY 4.0)",
            licence="CC BY 4.0",
            url="https://huggingface.co/datasets/lmarena-ai/leaderboard-dataset",
        ),
        Attribution(
            source="bfcl",
            text="Berkeley Function Calling Leaderboard, Gorilla project (Apache-2.0)",
            licence="Apache-2.0",
            url="https://gorilla.cs.berkeley.edu/leaderboard.html",
        ),
        Attribution(
            source="epoch",
            text="Epoch AI, ‘Capabilities & benchmarking’ (CC BY 4.0)",
            licence="CC BY 4.0",
            url="https://epoch.ai/benchmarks",
        ),
        Attribution(
            source="litellm",
            text="LiteLLM, model_prices_and_context_window.json (MIT)",
            licence="MIT",
            url="https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json",
        ),
        Attribution(
            source="openrouter",
            text=(
                "Source: OpenRouter (openrouter.ai), licensed under CC BY 4.0: reuse and "
                "republish with attribution to OpenRouter."
            ),
            licence="CC BY 4.0",
            url="https://openrouter.ai/api/v1/datasets/exports/README.md",
        ),
    )
}


def attribution(source: str) -> Attribution:
    """Section 10: the attribution `source` requires (every configured source has one)."""
    return ATTRIBUTIONS[source]


def attributions(sources: Iterable[str]) -> list[Attribution]:
    """The attributions of these sources, once each, in source order (a source that requires
    none, such as the demo's synthetic set, has none)."""
    return [ATTRIBUTIONS[s] for s in sorted(set(sources)) if s in ATTRIBUTIONS]


def attribution_text(source: str) -> str:
    """The attribution a line of a file from `source` carries ("" when it requires none)."""
    found = ATTRIBUTIONS.get(source)
    return "" if found is None else found.text


def sources_of(inputs: Iterable[str]) -> list[str]:
    """The sources named by a calibration's inputs (keys "<source> <address>", as
    `siiq update` records them); inputs from hand-made files name none."""
    return sorted({key.split(" ", 1)[0] for key in inputs} & set(ATTRIBUTIONS))
