"""Quoted text on pages (methodology section 17, Owner decision 2026-09-04): an em dash the
author wrote in an agent's final sentence or a repository description is shown as a comma, or
a period where it ends the text; the stored report is never touched."""

from __future__ import annotations

import re

NAME, VERSION = "quoted-text", 1

_TRAILING = re.compile(r"\s*\u2014\s*$")
_INSIDE = re.compile(r"\s*\u2014\s*")


def house_punctuation(text: str) -> str:
    """Words and their order never change: only the em dash becomes a comma or a period."""
    return _INSIDE.sub(", ", _TRAILING.sub(".", text))
