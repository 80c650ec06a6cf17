"""Materialised read models: stored with the position they were applied up to, caught up
by pulling the ledger (no subscription, so SQLite and PostgreSQL behave the same). A model is
stored at the latest approved position rather than at the head where it can be: a public
reader starts from that position (docs/scale.md, "The public read path")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic

import msgspec

from domain.events import PublicationApproved, streams
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
        """The model folded on from `position` to the head; stored, by a writer, at the head or
        at the latest approved position (`_kept_at`), unless it is stored there already."""
        head = self.ledger.size()
        kept = self._kept_at(position, head) if self.ledger.writes else head
        model = self._folded(model, position, kept, progress)
        if self.ledger.writes and not position == kept < head:
            self.ledger.recorder.save_projection(self.projection.name, kept, encode_json(model))
        return head, self._folded(model, kept, head, progress)

    def _kept_at(self, after: int, head: int) -> int:
        """Where a model folded on from `after` is stored: at the position the latest approval
        recorded since approves, when that is not before `after` (the stored model is then
        where a public reader starts, instead of a fold from the ledger's start); else at the
        head. Whether the approval's signer may publish is no matter here: any position's
        model is the fold up to it."""
        approvals = [
            recorded.event.position
            for recorded in self.ledger.stream(streams.PUBLICATION)
            if recorded.position > after and isinstance(recorded.event, PublicationApproved)
        ]
        return approvals[-1] if approvals and after <= approvals[-1] <= head else head

    def _folded(self, model: M, after: int, upto: int, progress: Callable[[int], None] | None) -> M:
        with collector_paused():
            for recorded in self.ledger.events(after, upto):
                model = self.projection.apply(model, recorded)
                if progress and recorded.position % 10_000 == 0:
                    progress(recorded.position)
        return model
