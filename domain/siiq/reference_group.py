"""SI-IQ section 4: the frozen reference group (what 100 means), as the method names it."""

from __future__ import annotations

from collections.abc import Sequence, Set

from domain.siiq.calibration import (
    ALPHA_AT_FLOOR,
    RANK_CHECK,
    CalibrationCheckFailed,
    eligible,
)
from domain.siiq.data import Observations

REFERENCE_GROUP: tuple[str, ...] = (
    "Claude 3.7 Sonnet",
    "Claude Haiku 4.5",
    "Claude Opus 4",
    "Claude Opus 4.1",
    "Claude Opus 4.5",
    "Claude Sonnet 4",
    "Claude Sonnet 4.5",
    "DeepSeek-R1",
    "DeepSeek-R1 (May 2025)",
    "DeepSeek-V3.2-Exp",
    "DeepSeek-V3 (Mar 2025)",
    "Gemini 2.5 Pro (Jun 2025)",
    "Gemini 3 Flash",
    "Gemini 3 Pro",
    "Gemma 3 12B",
    "Gemma 3 27B",
    "Gemma 3 4B",
    "GLM-4.7",
    "GPT-4.1",
    "GPT-4.1 mini",
    "GPT-4.1 nano",
    "GPT-5",
    "GPT-5.1",
    "GPT-5.2",
    "GPT-5 mini",
    "GPT-5 nano",
    "gpt-oss-120b",
    "gpt-oss-20b",
    "Grok 3",
    "Grok-3 mini",
    "Grok 4",
    "Llama 4 Maverick",
    "Llama 4 Scout",
    "Mistral Medium 3",
    "o3",
    "o3-mini",
    "o4-mini",
    "Qwen2.5-Max",
    "Qwen3-14B",
    "Qwen3-235B-A22B-Thinking (Jul 2025)",
    "Qwen3-30B-A3B",
    "Qwen3-30B-A3B-Instruct (Jul 2025)",
    "Qwen3-32B",
    "Qwen3-Max",
)


def missing_reference_members(
    obs: Observations, reference: Set[str], excluded: Set[str]
) -> list[str]:
    """SI-IQ section 3 (decision A7): every member of the frozen reference group that is not in
    the fitted set (step 1 with the benchmarks dropped so far), in code-point order."""
    fitted, _ = eligible(obs, reference, excluded)
    return sorted(reference - set(fitted.models))


def every_missing_member(
    obs: Observations, reference: Set[str], rejected: CalibrationCheckFailed
) -> str | None:
    """A rejection for a missing reference member names them all, not only the first."""
    if not rejected.reason.startswith("reference model "):
        return None
    dropped = {n for n, why in rejected.dropped.items() if why in (RANK_CHECK, ALPHA_AT_FLOOR)}
    missing = missing_reference_members(obs, reference, dropped)
    if len(missing) < 2:
        return None
    return f"reference models {', '.join(missing)} are missing from the fitted set"


def first_reference_problem(group: Sequence[str], frozen: Sequence[str]) -> str | None:
    """SI-IQ section 4: the first calibration uses the frozen reference group, the fixed list
    of what 100 means; why a different one is refused (the members it lacks or adds)."""
    gone, new = sorted(set(frozen) - set(group)), sorted(set(group) - set(frozen))
    if not gone and not new:
        return None
    parts = [f"without {', '.join(gone)}" if gone else "", f"with {', '.join(new)}" if new else ""]
    detail = "; ".join(p for p in parts if p)
    return f"the reference group differs from the frozen one of section 4 ({detail})"
