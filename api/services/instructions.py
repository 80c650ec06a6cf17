"""The standard instructions as evidence (methodology sections 7 point 2 and 18): each version
the agents were given is kept under its SHA-256 and published once, so a run names the version
it had and a reproduction can give the same one again."""

from __future__ import annotations

import contextlib
import hashlib

from eventsourcing.persistence import IntegrityError

from api.services.ports import EvidenceStore
from domain.errors import NotFound
from domain.events import InstructionsPublished, streams
from ledger.ledger import Ledger, NewEvent

LIMIT = 1 << 20
"""Instructions are a page of text: a stored file larger than this is not them."""


def published(ledger: Ledger, store: EvidenceStore, text: bytes) -> str:
    """Keep `text` and publish it once (a second publisher's append losing changes nothing);
    its SHA-256."""
    kept = store.put_stream([text])
    if not ledger.stream(streams.instructions(kept.sha256)):
        fact = InstructionsPublished(sha256=kept.sha256, bytes=kept.bytes)
        # published meanwhile by another runner: once is what counts
        with contextlib.suppress(IntegrityError):
            ledger.append([NewEvent(fact, 1)])
    return kept.sha256


def kept_instructions(store: EvidenceStore, sha256: str) -> bytes:
    """The instructions of that SHA-256 as kept; NotFound, naming it, when they are not."""
    try:
        text = b""
        for chunk in store.read(sha256):
            text += chunk
            if len(text) > LIMIT:
                break
    except OSError:
        text = b""
    if hashlib.sha256(text).hexdigest() != sha256:
        raise NotFound(f"the standard instructions {sha256} are no longer kept")
    return text
