"""How a pure rule says no: the rule broken and why, for the caller to name the record."""

from __future__ import annotations


class Rejected(ValueError):
    """An input breaks a rule of the methodology; nothing of it may be recorded."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{reason} ({rule})")
        self.rule = rule
        self.reason = reason
