"""Each run's timeline (methodology section 17) in its run document: derived from the served
recording as stored, a pure projection of it and of the run's record (`domain.evidence.timeline`),
so a run recorded before timelines existed has one too. Kept once derived: both inputs are
immutable (the recording is content-addressed, the record never changes)."""

from __future__ import annotations

import threading
from collections import OrderedDict

import msgspec
import structlog

from api.services.ports import EvidenceStore
from domain.errors import NotFound
from domain.evidence.asciicast import RecordingError
from domain.evidence.timeline import Timeline, run_timeline
from projections.views.run import RunView

log = structlog.get_logger()

KEPT = 256
"""Timelines kept in memory, the least recently read dropped first."""


class Timelines:
    def __init__(self, store: EvidenceStore) -> None:
        self.store = store
        self._kept: OrderedDict[tuple[str, int], Timeline | None] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, view: RunView) -> Timeline | None:
        """The run's timeline; None when it has no recording served (none, or withheld)."""
        cast = view.evidence.get("cast")
        withheld = any(copy.withheld for copy in view.evidence.values())
        if cast is None or cast.served_sha256 is None or withheld:
            return None
        key = (cast.served_sha256, view.position)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        try:
            timeline: Timeline | None = run_timeline(
                view.run, self.store.read(cast.served_sha256), cast.served_sha256
            )
        except RecordingError:
            timeline = None
        except (FileNotFoundError, NotFound):
            # not in this machine's store (yet): the page goes without, `ledger verify
            # --evidence` names the file, and a later read derives it once the file is there
            log.warning("recording not in the store", run_id=view.run_id, sha256=key[0])
            return None
        with self._lock:
            self._kept[key] = timeline
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return timeline

    def attach(self, view: RunView) -> RunView:
        return msgspec.structs.replace(view, timeline=self.of(view))
