"""Which score and which model (SI-IQ section 1): the rules a source adapter applies before a
result reaches the normalised input."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

COVERAGE = 0.95
PRODUCT_WORDS = frozenset(
    {"vl", "mini", "pro", "nano", "flash", "lite", "max", "ultra", "plus", "turbo"}
)
RUN_SETTING = re.compile(
    r"\s*\((?:"
    r"(?:minimal|low|medium|high|xhigh|max|none|default)(?: effort| reasoning)?"
    r"|(?:no|default|\d+k?) think(?:ing)?(?: tokens| budget)?"
    r"|thinking|\d+k"
    r"|fc|prompt"
    r")\)\s*$",
    re.I,
)
"""Explicit run settings written after a name: a reasoning effort ("(high)"), a thinking budget
("(32k thinking)", "(no think)"), BFCL's calling mode ("(FC)", "(Prompt)")."""


class ProviderRun(NamedTuple):
    """One hosting provider's runs of a model on a benchmark (e.g. OpenRouter)."""

    provider: str
    score: float
    questions_attempted: int
    runs: int
    own_hosting: bool


def median_provider(runs: Sequence[ProviderRun], questions: int) -> ProviderRun | None:
    """Section 1: among providers whose runs covered on average at least 95% of the questions
    (only the developer's own hosting if it is among them), the median provider; for an even
    count the lower of the two middle ones, so the number used is one provider's result
    exactly as published."""
    covering = [
        r for r in runs if r.runs and r.questions_attempted / r.runs >= COVERAGE * questions
    ]
    own = [r for r in covering if r.own_hosting]
    chosen = sorted(own or covering, key=lambda r: r.score)
    return chosen[(len(chosen) - 1) // 2] if chosen else None


def product_words(name: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[^a-z0-9]+", name.lower()) if w in PRODUCT_WORDS)


def same_product(version: str, group: str) -> bool:
    """Section 1: a model version counts for its group only when the product type matches (a
    "VL", "Mini" or "Pro" version filed under another group is left out); tiers sold as
    separate products are separate models, never configurations of the base one."""
    return product_words(version) == product_words(group)


def without_run_setting(name: str) -> str:
    """Section 1: names from other sources match after removing an explicit run setting such as
    "(high)"."""
    return RUN_SETTING.sub("", name).strip()
