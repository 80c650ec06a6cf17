"""`siiq watch`: SI-IQ section 8's schedule without an outside cron. Each round fetches every
source with conditional requests (`fetch_sources`) and runs one update (`update_siiq`), then
waits for the next round, `every` seconds after the one before (hourly by default; a round
that overran skips the slots it missed). Each of a round's appends is one atomic batch; a stop
asked for during a round lets the round finish, so a round's appends are all made, and one
asked for between rounds ends the watch at once. The rounds are section 8's hourly runs: a
halted publication counts each round in a new clock hour (`domain.siiq.cadence`)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import msgspec
import structlog
from eventsourcing.persistence import PersistenceError

from api.services.ports import CrossChecking, SourceReading
from api.services.siiq_publication import SiteCheck
from api.services.siiq_update import UpdateReport, update_siiq
from api.services.sources import FetchRow, fetch_sources
from domain.errors import ArgusicError
from ledger.ledger import Ledger

log = structlog.get_logger(__name__)


class WatchRound(msgspec.Struct, frozen=True, kw_only=True):
    """One line of `argusic siiq watch`: what a round fetched and what its update did (as
    `siiq update --json` prints it), and the ledger's size once its appends were made."""

    round: int
    started: datetime
    finished: datetime
    size: int
    fetched: list[FetchRow] = []
    update: UpdateReport | None = None
    error: str | None = None
    """Why the round stopped part way (a source's file not stored, the database unreachable);
    the next round starts over from the ledger."""


class Watch:
    """What a round needs: the ledger, the sources and how to read them, the checker, the
    site check and the clock."""

    def __init__(
        self,
        ledger: Ledger,
        reader: SourceReading,
        *,
        sources: Mapping[str, Sequence[str]],
        checker: CrossChecking | None,
        clock: Callable[[], datetime],
        site: SiteCheck | None = None,
    ) -> None:
        self.ledger, self.reader, self.sources = ledger, reader, sources
        self.checker, self.clock, self.site = checker, clock, site

    def round(self, number: int) -> WatchRound:
        """Fetch every source, then one update; a failure of either is reported in the round's
        line, and what was appended before it stays (each append is whole)."""
        started = self.clock()
        fetched: list[FetchRow] = []
        update, error = None, None
        try:
            fetched = fetch_sources(self.ledger, self.reader, self.sources).sources
            update = update_siiq(self.ledger, self.checker, self.clock(), self.site)
        except (ArgusicError, OSError, PersistenceError) as e:  # the watch outlives a round
            error = f"{type(e).__name__}: {e}"
            log.error("siiq_watch_round_failed", round=number, error=error)
        return WatchRound(
            round=number,
            started=started,
            finished=self.clock(),
            size=self.ledger.size(),
            fetched=fetched,
            update=update,
            error=error,
        )


def watch(
    run_round: Callable[[int], WatchRound],
    every: float,
    stop: threading.Event,
    emit: Callable[[WatchRound], None],
) -> int:
    """Rounds every `every` seconds until `stop` is set; each round's report goes to `emit`
    once the round is whole. Returns the number of rounds run."""
    done = 0
    due = time.monotonic()
    while not stop.is_set():
        done += 1
        log.info("siiq_watch_round", round=done)
        emit(run_round(done))
        due += every
        now = time.monotonic()
        if due < now:  # the round overran: the slots it missed are skipped
            due = now if every <= 0 else due + every * math.ceil((now - due) / every)
        stop.wait(due - now)
    return done
