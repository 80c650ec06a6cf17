"""`argusic reproduce RUN_ID --as NAME`: run a recorded result again as it ran (methodology
section 18: "Argusic guarda sus versiones exactas y puede volver a ejecutar un resultado para
reproducirlo"). Refused, naming what, when something it ran with can no longer be had; else a
signed `request_reproduction` and its runs scheduled at once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

import msgspec

from api.services.instructions import kept_instructions
from api.services.operators import ActionDesk
from api.services.ports import EvidenceStore
from api.services.reader import ProjectionReader
from api.services.run_log import RunBoard
from api.services.schedule import schedule_reproductions
from domain.errors import NotFound, Rejected
from domain.events import RunRecorded
from domain.events.operators import RequestReproduction
from domain.reproduction import reproducible
from domain.runner.config import OrchestratorConfig
from ledger.ledger import Ledger
from ledger.note import Signer
from projections.methodology import MethodologyProjection


class Images(Protocol):
    def has_image(self, digest: str) -> bool: ...


class ReproductionAsked(msgspec.Struct, frozen=True, kw_only=True):
    request: str
    runs: list[str]


def still_had(run: RunRecorded, images: Images, store: EvidenceStore) -> None:
    """Section 18: the machine image (by digest) and the standard instructions (by SHA-256) the
    run had must still be there to run it again as it ran."""
    reproducible(run)
    assert run.image_digest is not None
    assert run.instructions_sha256 is not None
    if not images.has_image(run.image_digest):
        raise Rejected(
            "section 18",
            f"run {run.run_id}: its machine image {run.image_digest} is no longer on the engine, "
            "so it cannot be run again as it ran",
        )
    try:
        kept_instructions(store, run.instructions_sha256)
    except NotFound as e:
        raise Rejected("section 18", f"run {run.run_id}: {e}") from None


def reproduce(
    ledger: Ledger,
    desk: ActionDesk,
    signer: Signer,
    request: RequestReproduction,
    *,
    images: Images,
    store: EvidenceStore,
    config: OrchestratorConfig,
    clock: Callable[[], datetime],
) -> ReproductionAsked:
    """Check, sign and append the request, then schedule its runs (a worker loop schedules any
    this left unscheduled)."""
    reader = ProjectionReader(ledger, MethodologyProjection())
    run = reader.latest().runs.get(request.run_id)
    if run is None:
        raise NotFound(f"no run {request.run_id!r}: nothing to reproduce")
    still_had(run.event, images, store)
    desk.act(signer, request)
    asked = reader.latest().reproductions[request.run_id][-1]
    schedule_reproductions(reader, RunBoard(ledger), config, clock)
    return ReproductionAsked(request=asked.request, runs=asked.runs)
