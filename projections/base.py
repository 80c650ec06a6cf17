"""A projection is `initial()` plus `apply(model, event) -> model`, and nothing else.

`apply` may update the model it is handed and return it: every fold starts from a fresh
`initial()` or a freshly decoded stored model, so no two folds share one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from ledger.collector import collector_paused
from ledger.ledger import RecordedEvent

M = TypeVar("M")


class Projection(Protocol[M]):
    name: str
    """Names the stored read model; bump its suffix when `apply` changes meaning."""
    model_type: type[M]

    def initial(self) -> M: ...

    def apply(self, model: M, recorded: RecordedEvent) -> M: ...


def fold(projection: Projection[M], events: Iterable[RecordedEvent], model: M | None = None) -> M:
    """Apply events in order to `model` (a fresh initial model by default)."""
    current = projection.initial() if model is None else model
    with collector_paused():
        for recorded in events:
            current = projection.apply(current, recorded)
    return current
