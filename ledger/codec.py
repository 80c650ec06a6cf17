"""The one codec that makes every byte the ledger hashes or signs.

A stored event is the canonical JSON of its envelope: msgspec JSON with every key sorted and
timestamps in UTC, so anyone holding an export can recompute each hash.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

import msgspec

from domain.events import DomainEvent


class Envelope(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one ledger entry says: which event, in which stream, at which version, when."""

    event: DomainEvent
    recorded_at: datetime
    stream: str
    version: int


class _EventType(msgspec.Struct):
    type: str


class Header(msgspec.Struct, frozen=True):
    """An envelope read without decoding its event: what audits of the columns need."""

    event: _EventType
    recorded_at: str
    stream: str
    version: int

    @property
    def type(self) -> str:
        return self.event.type


class Body(msgspec.Struct, frozen=True):
    """What a reader of events needs from an envelope whose stream and version are already
    known (the row's columns): the event and when it was recorded; the rest is skipped."""

    event: DomainEvent
    recorded_at: datetime


_encoder = msgspec.json.Encoder(order="sorted")
_envelope_decoder = msgspec.json.Decoder(Envelope)
_body_decoder = msgspec.json.Decoder(Body)
_header_decoder = msgspec.json.Decoder(Header)


def event_type(event: DomainEvent) -> str:
    """The tag a domain event is stored under."""
    return str(event.__struct_config__.tag)


def encode(envelope: Envelope) -> bytes:
    """The canonical bytes of an envelope."""
    return _encoder.encode(envelope)


def encode_json(value: object) -> bytes:
    """Canonical JSON of any value (sorted keys): read models and published documents."""
    return _encoder.encode(value)


def decode(canonical: bytes) -> Envelope:
    return _envelope_decoder.decode(canonical)


def decode_body(canonical: bytes | str) -> Body:
    return _body_decoder.decode(canonical)


def decode_header(canonical: bytes) -> Header:
    return _header_decoder.decode(canonical)


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()
