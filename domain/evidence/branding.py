"""Neutral agent branding (methodology section 17): the start-up banner of the tool underneath
an agent is blanked; the agent's commands and changes are never edited, and vendor names that
occur naturally (paths, packages, code) stay."""

from __future__ import annotations

from collections.abc import Sequence

from domain.evidence.masking import Found, Span
from domain.evidence.scan import Scanner

NAME, VERSION = "neutral-branding", 1


class BannerFinder:
    """Banner patterns are data, configured per harness; each must match the banner itself
    (anchored to a whole line), never a command or its output. They are RE2 expressions, so a
    scan stays linear in the text."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.sign = "(?m:" + "|".join(f"(?:{p})" for p in patterns) + ")" if patterns else None
        self.pattern = Scanner(self.sign) if self.sign else None
        if self.pattern is not None:  # configured data: one RE2 refuses fails here, not mid-file
            _ = self.pattern.text

    def __call__(self, text: str) -> Found:
        if self.pattern is None:
            return Found([], None)
        return Found(
            [Span(m.start(), m.end(), "banner") for m in self.pattern.finditer(text)], None
        )
