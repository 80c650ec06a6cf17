"""The start-up banners of the tools under agents, per harness (methodology section 17,
neutral branding): data, read from `banners.json` beside this module."""

from __future__ import annotations

import json
from pathlib import Path

BANNERS = Path(__file__).with_name("banners.json")


def banner_patterns(harness: str) -> list[str]:
    """The whole-line patterns of a harness's banner; none for a harness not configured."""
    patterns: dict[str, list[str]] = json.loads(BANNERS.read_text())
    return patterns.get(harness, [])
