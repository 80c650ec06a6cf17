"""Section 8's confirmations: held values confirmed by a later snapshot (or the other run) are
published, a new leader's all together; unconfirmed after 7 days the operator is told. And
`siiq holds`."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from api.services.queries import SiiqQueries
from api.services.siiq_run import Run
from api.services.siiq_values import LEADER, cross_check, other_run
from domain.events import (
    HoldConfirmed,
    PublishedValue,
)
from domain.siiq import guards as rules
from domain.siiq.guards import Seen
from projections.siiq import Hold
from projections.views.siiq_publication import HoldRow, NoticeRow, holds, notices


def _history(hold: Hold, run: Run) -> list[Seen]:
    pending = run.observed.get(hold.held.hold)
    return [*hold.history, *([pending[0]] if pending else [])]


def confirm_holds(run: Run) -> None:
    """Section 8: held values confirmed by a later snapshot (or the other run) are published,
    a new leader's only all together once its score held steady, each re-read by the checker
    at the value about to be published (a disagreement keeps the hold); unconfirmed after 7
    days the operator is told, of every kind of hold."""
    leaders: dict[str, list[Hold]] = {}
    for hold in run.guards.holds.values():
        if hold.held.reason == LEADER:
            leaders.setdefault(hold.held.model, []).append(hold)
            continue
        latest = run.observed.get(hold.held.hold, (None, hold.latest))[1]
        by = None if latest is None else _confirmed_by(run, hold, latest)
        if latest is not None and by is not None and reread(run, [latest]):
            _confirm(run, hold, latest, by)
        else:
            _tell_if_due(run, hold)
    for model, group in sorted(leaders.items()):
        newest = {h.held.hold: run.observed.get(h.held.hold, (None, h.latest))[1] for h in group}
        ready = all(
            newest[h.held.hold] is not None
            and rules.confirmed_by_snapshot(_history(h, run), h.held.snapshot, run.now)
            for h in group
        )
        values = {v.key: v for v in newest.values() if v is not None}
        proposed = run.index({**run.published(), **run.publish, **values})
        entry = next((m for m in proposed.models if m.slug == model), None) if proposed else None
        then = group[0].held.si_iq or 0.0
        first = min(h.held.since for h in group)
        if (
            entry is not None
            and rules.leader_released(ready, first, run.now, entry.si_iq_full, then)
            and reread(run, list(values.values()))
        ):
            for hold in group:
                value = newest[hold.held.hold]
                assert value is not None
                own = run.snapshot_for(value.result.benchmark)
                _confirm(run, hold, value, f"snapshot {own}, score steady")
        else:
            for hold in group:
                _tell_if_due(run, hold)


def _tell_if_due(run: Run, hold: Hold) -> None:
    """Section 8: a held value (a new leader's too) that nothing confirmed within 7 days of
    being held is told to the operator, once."""
    if rules.notice_due(hold.held.since, run.now, rules.HOLD_NOTICE, hold.notified):
        run.notify(
            hold.held.hold,
            f"{hold.held.model} on {hold.held.benchmark} held since "
            f"{hold.held.since:%Y-%m-%d %H:%M} UTC, unconfirmed after 7 days: "
            "release_hold after checking the source",
        )


def _confirmed_by(run: Run, hold: Hold, latest: PublishedValue) -> str | None:
    """What confirms a held value (section 8): a later snapshot, or the other run of the same
    questions; None while nothing does."""
    if rules.confirmed_by_snapshot(_history(hold, run), hold.held.snapshot, run.now):
        return f"snapshot {run.snapshot_for(hold.held.benchmark)}"
    if rules.confirmed_by_other_run(latest.result.score, other_run(run, latest)):
        return "the other run of the same questions"
    return None


def reread(run: Run, values: Sequence[PublishedValue]) -> bool:
    """Section 8: every new or changed number is re-read in its source row before it is
    published: a held value at the number about to be published, immediately before."""
    return len(cross_check(run, values)) == len(values)


def _confirm(run: Run, hold: Hold, value: PublishedValue, by: str) -> None:
    run.events.append(HoldConfirmed(hold=hold.held.hold, at=run.now, by=by))
    run.note(confirmed=[*run.report.confirmed, hold.held.hold])
    run.publish_value(value)


class HoldsReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq holds --json` (ARCHITECTURE.md, Wave 2 JSON outputs), with the notices."""

    holds: list[HoldRow]
    notifications: list[NoticeRow]


def holds_report(queries: SiiqQueries) -> HoldsReport:
    """Section 8: every held value and every notice to the operator, at the head."""
    state = queries.reader.latest()
    return HoldsReport(holds=holds(state), notifications=notices(state))
