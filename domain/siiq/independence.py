"""Independence (SI-IQ section 1.1): a result whose evaluator is the model's own developer is never
used: numbers from the developer's system cards, model cards, announcements or blog, even when a
leaderboard repeats them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

SOURCE_COLUMNS = ("Source",)
LINK_COLUMNS = ("Source link", "Source Link", "Source link (site from table)")
NOTE_COLUMNS = ("Notes", "Notes (details)")
CARD = re.compile(r"\b(?:system|model)\s+card\b", re.I)

GOOGLE = ("blog.google", "deepmind.com", "deepmind.google", "ai.google.dev", "googleblog.com")
DEVELOPER_DOMAINS: dict[str, tuple[str, ...]] = {
    "01.ai": ("01.ai",),
    "alibaba": ("alibaba.com", "alibabacloud.com", "aliyun.com", "qwen.ai", "qwenlm.github.io"),
    "amazon": ("amazon.com", "amazon.science", "aboutamazon.com"),
    "anthropic": ("anthropic.com", "claude.ai", "claude.com"),
    "cohere": ("cohere.com", "cohere.ai"),
    "cohere for ai": ("cohere.com", "cohere.ai"),
    "deepseek": ("deepseek.com",),
    "google": GOOGLE,
    "google deepmind": GOOGLE,
    "google research": GOOGLE,
    "meta ai": ("meta.com", "facebook.com", "fb.com", "llama.com"),
    "microsoft": ("microsoft.com",),
    "microsoft research": ("microsoft.com",),
    "minimax": ("minimax.io", "minimaxi.com"),
    "mistral ai": ("mistral.ai",),
    "moonshot": ("moonshot.ai", "moonshot.cn", "kimi.ai", "kimi.com"),
    "nvidia": ("nvidia.com",),
    "openai": ("openai.com", "chatgpt.com"),
    "xai": ("x.ai",),
    "z.ai (zhipu ai)": ("z.ai", "zhipuai.cn", "bigmodel.cn"),
}
"""The web domains each developer (as Epoch AI's `Organization` names it) publishes from; hosts
that serve anyone's documents (docs.google.com, github.com) are not among them."""


def developers(organization: str) -> list[str]:
    """Epoch AI's `Organization` cell may name several developers, comma-separated."""
    return [o.strip() for o in organization.split(",") if o.strip()]


def developer_reported(row: Mapping[str, object], organization: str) -> bool:
    """SI-IQ section 1.1: the row's numbers come from the model's own developer: its source
    names the developer ("Anthropic announcement"), its link is on the developer's own site
    (a system card on anthropic.com, a model card on x.ai), or its source or notes say the
    numbers come from a system card or a model card, which only a developer publishes about
    its own models."""
    source = _cell(row, SOURCE_COLUMNS)
    notes = _cell(row, NOTE_COLUMNS)
    if CARD.search(source) or CARD.search(notes):
        return True
    host = (urlsplit(_cell(row, LINK_COLUMNS)).hostname or "").lower()
    for developer in developers(organization):
        if developer.casefold() in source.casefold():
            return True
        if host and any(_on(host, d) for d in DEVELOPER_DOMAINS.get(developer.casefold(), ())):
            return True
    return False


def _on(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def _cell(row: Mapping[str, object], columns: tuple[str, ...]) -> str:
    return " ".join(str(row.get(c) or "") for c in columns if row.get(c))
