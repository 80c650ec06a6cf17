"""Each run's timeline (methodology section 17) in its run document: derived from the served
recording as stored, a pure projection of it and of the run's record (`domain.evidence.timeline`),
recorded as a `TimelineRecorded` when the run arrives and derived the same way when read for a
run recorded before timelines existed. Kept once read: both inputs are immutable (the recording
is content-addressed, the record never changes)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import msgspec
import structlog

from api.services.ports import EvidenceStore
from domain.errors import NotFound
from domain.events import DomainEvent, EvidenceTransformed, RecordingWithheld, RunRecorded, streams
from domain.events.evidence import Timeline, TimelineRecorded
from domain.evidence.asciicast import RecordingError
from domain.evidence.timeline import run_timeline
from ledger.ledger import RecordedEvent
from projections.views.run import RunView

log = structlog.get_logger()

KEPT = 256
"""Timelines kept in memory, the least recently read dropped first."""


def timeline_on_arrival(
    run: RunRecorded, events: list[DomainEvent], store: EvidenceStore
) -> TimelineRecorded | None:
    """The timeline a run arriving with `events` records beside itself: from its served
    recording (the last step of its `cast`), none when it has none or any file is withheld."""
    if any(isinstance(e, RecordingWithheld) for e in events):
        return None
    steps = [e for e in events if isinstance(e, EvidenceTransformed) and e.kind == "cast"]
    if not steps:
        return None
    served = steps[-1].output_sha256
    try:
        return TimelineRecorded(
            run_id=run.run_id, timeline=run_timeline(run, store.read(served), served)
        )
    except RecordingError:
        return None


class Timelines:
    def __init__(
        self, store: EvidenceStore, recorded: Callable[[str], list[RecordedEvent]]
    ) -> None:
        """`recorded`: the events of a ledger stream (the timelines recorded on arrival)."""
        self.store = store
        self.recorded = recorded
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
            timeline: Timeline | None = self._recorded(view, cast.served_sha256) or run_timeline(
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

    def _recorded(self, view: RunView, served: str) -> Timeline | None:
        """The timeline recorded when the run arrived, as of the view's position, if it was
        recorded from the recording served now."""
        for recorded in self.recorded(streams.timeline(view.run_id)):
            event = recorded.event
            if (
                recorded.position <= view.position
                and isinstance(event, TimelineRecorded)
                and event.timeline.source_sha256 == served
            ):
                return event.timeline
        return None

    def attach(self, view: RunView) -> RunView:
        return msgspec.structs.replace(view, timeline=self.of(view))
