"""SI-IQ section 8's cross-check: each new or changed number is re-read in its source row (with
the column headers) by a model of another family, which must confirm the model, the benchmark,
the number and the model's identity. The claim and the prompt are built here; the answer is
read here; the adapter only carries them over HTTP.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import msgspec

from domain.errors import SetupError
from domain.siiq.independence import developers

SYSTEM = (
    "You check numbers copied from public benchmark tables. You are given a claim and the "
    "source row it was read from, with its column headers. Answer with one JSON object "
    '{"model": bool, "benchmark": bool, "number": bool, "identity": bool} saying whether the '
    "row shows that model, that benchmark, exactly that number, and that model version name."
)
FIELDS = ("model", "benchmark", "number", "identity")


class CrossCheckUnavailable(SetupError):
    """The checker is unset or did not answer (section 8: the whole update halts and the
    previous version stays online)."""


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    """A number as the index would use it, with the row it was read from."""

    model: str
    benchmark: str
    number: Any
    """The score cell exactly as published (a text or a JSON number)."""
    identity: str
    """The model's name as the row spells it (the version the group was matched from)."""
    columns: list[str]
    cells: list[Any]


def claim_of(
    model: str, benchmark: str, row: Mapping[str, Any], column: str, identity: str
) -> Claim:
    """The claim for a result read from `column` of `row`."""
    return Claim(
        model=model,
        benchmark=benchmark,
        number=row.get(column),
        identity=identity,
        columns=list(row),
        cells=list(row.values()),
    )


def messages(claim: Claim) -> list[dict[str, str]]:
    """The chat-completions messages asking the checker about one claim."""
    quoted = {
        "claim": {
            "model": claim.model,
            "benchmark": claim.benchmark,
            "number": claim.number,
            "identity": claim.identity,
        },
        "columns": claim.columns,
        "row": claim.cells,
    }
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": json.dumps(quoted, ensure_ascii=False, sort_keys=True)},
    ]


def confirmed(answer: str) -> bool:
    """Section 8: the checker confirmed all four (an answer that is not the asked JSON confirms
    nothing). A fenced JSON block is read too."""
    text = answer.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        verdict = json.loads(text)
    except ValueError:
        return False
    return isinstance(verdict, dict) and all(verdict.get(f) is True for f in FIELDS)


def _as_number(cell: object) -> float | None:
    if isinstance(cell, bool):
        return None
    try:
        value = float(str(cell).strip().rstrip("%"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def row_carries(claim: Claim) -> dict[str, bool]:
    """What a careful reader of the row alone can confirm: the number is one of its cells and
    the identity is one of its cells; the model group and the benchmark are taken from the
    claim (the row names neither by our names). What `argusic crosscheck stand-in` answers."""
    number = _as_number(claim.number)
    numbers = [_as_number(c) for c in claim.cells]
    names = [str(c).strip() for c in claim.cells]
    return {
        "model": True,
        "benchmark": True,
        "number": number is not None and number in numbers,
        "identity": claim.identity.strip() in names,
    }


def family_problem(checker_family: str, organization: str) -> str | None:
    """Section 8: the checker is a model of another family than the model whose number it
    reads (the row's developers, Epoch AI's `Organization`): why not, or None when it is."""
    family = checker_family.strip().casefold()
    if not family:
        return "the checker's model family is not configured"
    same = [d for d in developers(organization) if family in d.casefold()]
    if same:
        return f"the checker's family {checker_family} is that of the model's developer {same[0]}"
    return None
