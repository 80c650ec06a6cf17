"""`siiq publish-check` and each update's publication (SI-IQ section 8): every SI-IQ of the new
index recomputed from its inputs with the project's own `siiq recompute`; ranked models vanishing
or many scores moving without a recalibration halt publication, which resumes by itself only
when every affected model's inputs changed and the situation held for six hourly runs (or a
person's signed `release_hold` of "publication"). Before that, the pages the publication would
put online are checked (`SiteCheck`, built by the web layer): one that does not parse, or a link
that does not resolve, halts it whatever a person released. Each publication is an event naming
the SHA-256 of the documents it published, which replaying the ledger reproduces."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import datetime

import msgspec

from api.services.calibrate import recompute_document
from api.services.queries import SiiqQueries
from domain.events import (
    DomainEvent,
    OperatorNotified,
    PublicationHalted,
    PublishedValue,
    SiiqPublished,
    ValuesPublished,
)
from domain.siiq import guards as rules
from domain.siiq.cadence import hourly_run
from domain.siiq.index import IndexDocument
from ledger.ledger import Ledger

SiteCheck = Callable[[SiiqQueries, int], str | None]
"""SI-IQ section 8, "antes de publicar, el sitio se comprueba": the pages a publication as of a
position would put online, checked; the first problem, or None. Without one (tests of the other
rules) no page is checked."""


class PublishReport(msgspec.Struct, frozen=True, kw_only=True):
    """`argusic siiq publish-check --json`: whether the documents at the head pass the check,
    and (when publishing) what was published or why not."""

    publishable: bool
    published: bool
    reason: str | None
    models: list[str]
    version: str
    index_sha256: str | None = None


def publication_check(queries: SiiqQueries, position: int) -> tuple[str | None, list[str]]:
    """Section 8's check of the index as of `position` against the one last published: the
    recomputation, then vanishing ranked models or many moved scores; the problem and the
    models it affects, or (None, [])."""
    document = msgspec.json.encode(queries.index_at(position))
    recomputed = recompute_document(document)
    if not recomputed.ok:
        return f"an SI-IQ does not recompute from its inputs: {recomputed.mismatch}", []
    state = queries.reader.latest().guards
    if not state.publications:
        return None, []
    before = state.published_scores
    after = _scores(queries.index_at(position))
    moves = rules.publication_moves(before, after)
    problem = rules.publication_problem(moves, len(before), state.recalibrated_since_publication)
    return problem, sorted({*moves.vanished, *moves.unranked, *moves.moved})


def _scores(document: IndexDocument) -> dict[str, tuple[bool, float]]:
    return {m.slug: (m.ranked, m.si_iq_full) for m in document.models}


def publish_check(ledger: Ledger, site: SiteCheck | None = None) -> PublishReport:
    """`argusic siiq publish-check`: the check at the head, publishing nothing."""
    queries = SiiqQueries(ledger)
    problem, models = publication_check(queries, ledger.size())
    if problem is None and site is not None:
        problem = site(queries, ledger.size())
    version = queries.reader.latest().version
    return PublishReport(
        publishable=problem is None, published=False, reason=problem, models=models, version=version
    )


def publish_siiq(
    ledger: Ledger,
    now: datetime,
    queries: SiiqQueries | None = None,
    site: SiteCheck | None = None,
) -> PublishReport:
    """Publish the documents at the head, or halt (the previous stay online) and tell the
    operator once; a halt resumes only as section 8 says."""
    queries = queries or SiiqQueries(ledger)
    head = ledger.size()
    problem, models = publication_check(queries, head)
    guards = queries.reader.latest().guards
    version = queries.reader.latest().version
    halt = None if guards.publication_released else problem
    if halt is None and site is not None and (halt := site(queries, head)) is not None:
        models = []  # a person's release lets moved scores out, never a page that is broken
    if halt is not None:
        runs = guards.halt_runs + hourly_run(guards.halt_hour, now)
        changed = guards.changed_since_publication
        if not models or not rules.resume_allowed(models, changed, runs):
            events: list[DomainEvent] = [PublicationHalted(at=now, reason=halt, models=models)]
            if guards.publication_halt is None:
                message = f"publication halted: {halt}"
                events.append(OperatorNotified(at=now, subject="publication", message=message))
            ledger.append(ledger.next_versions(events))
            return PublishReport(
                publishable=False, published=False, reason=halt, models=models, version=version
            )
    shas = {
        kind: hashlib.sha256(data).hexdigest() for kind, data in queries.documents(head).items()
    }
    index = queries.index_at(head)
    ledger.append(
        ledger.next_versions(
            [
                SiiqPublished(
                    at=now,
                    version=version,
                    index_sha256=shas["index"],
                    evidence_sha256=shas["evidence"],
                    history_sha256=shas["history"],
                    status_sha256=shas["status"],
                    scores={m.slug: m.si_iq_full for m in index.models},
                    ranked=[m.slug for m in index.models if m.ranked],
                )
            ]
        )
    )
    return PublishReport(
        publishable=True,
        published=True,
        reason=problem,
        models=models,
        version=version,
        index_sha256=shas["index"],
    )


def publish_inputs(
    ledger: Ledger, values: Sequence[PublishedValue], now: datetime
) -> PublishReport:
    """Inputs already checked elsewhere (the demo's synthetic set, which no source serves)
    published as one update's values at `now`, then the publication with section 8's check:
    one day of section 11's archive."""
    published = SiiqQueries(ledger).reader.latest().guards.values
    changed = [v for v in values if published.get(v.key) != v]
    if changed:
        correction = any(v.key in published for v in changed)
        event = ValuesPublished(at=now, values=changed, correction=correction)
        ledger.append(ledger.next_versions([event]))
    return publish_siiq(ledger, now)
