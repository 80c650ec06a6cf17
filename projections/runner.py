"""Materialised read models: stored with the position they were applied up to, caught up
by pulling the ledger (no subscription, so SQLite and PostgreSQL behave the same)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic

import msgspec

from ledger.codec import encode_json
from ledger.collector import collector_paused
from ledger.ledger import Ledger
from projections.base import M, Projection, fold


class ReadModel(Generic[M]):
    """One projection's stored model in one ledger."""

    def __init__(self, ledger: Ledger, projection: Projection[M]) -> None:
        self.ledger = ledger
        self.projection = projection

    def stored(self, upto: int | None = None) -> tuple[int, M]:
        """The stored model and its position; the initial model at 0 before the first save, or
        when the stored one is past `upto` (it is then left undecoded)."""
        found = self.ledger.recorder.load_projection(self.projection.name)
        if found is None or (upto is not None and found[0] > upto):
            return 0, self.projection.initial()
        position, model = found
        return position, self.decoded(model)

    def decoded(self, model: bytes) -> M:
        """A model from the bytes `encode_json` made of it (stored, or a copy of a kept one)."""
        with collector_paused():
            return msgspec.json.decode(model, type=self.projection.model_type)

    def catch_up(self, progress: Callable[[int], None] | None = None) -> tuple[int, M]:
        """Apply the events recorded since the stored position; store model and position
        (a reader, which holds the public key alone, folds on in memory and stores nothing)."""
        position, model = self.stored()
        return self._advance(position, model, progress)

    def rebuild(self, progress: Callable[[int], None] | None = None) -> tuple[int, M]:
        """Fold every event from position 0 into a fresh model and store it."""
        return self._advance(0, self.projection.initial(), progress)

    def as_of(self, position: int | None = None) -> M:
        """The model as of `position` (the latest when None), without storing anything."""
        stored_position, model = self.stored(upto=position)
        return fold(self.projection, self.ledger.events(stored_position, position), model)

    def _advance(
        self, position: int, model: M, progress: Callable[[int], None] | None
    ) -> tuple[int, M]:
        head = self.ledger.size()
        with collector_paused():
            for recorded in self.ledger.events(position, head):
                model = self.projection.apply(model, recorded)
                if progress and recorded.position % 10_000 == 0:
                    progress(recorded.position)
        if self.ledger.writes:
            self.ledger.recorder.save_projection(self.projection.name, head, encode_json(model))
        return head, model
