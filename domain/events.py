"""Every fact the ledger records: frozen msgspec Structs, tagged by their type name.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import cache

import msgspec
import msgspec.inspect


def require_utc(owner: str, name: str, value: object) -> None:
    """Timestamps are hashed, so one instant must have one spelling: UTC, written `Z`."""
    if isinstance(value, datetime) and value.utcoffset() != timedelta(0):
        raise ValueError(f"{owner}.{name} must be a UTC timestamp")


@cache
def _timestamp_fields(cls: type) -> tuple[str, ...]:
    def holds_datetime(t: msgspec.inspect.Type) -> bool:
        if isinstance(t, msgspec.inspect.UnionType):
            return any(map(holds_datetime, t.types))
        return isinstance(t, msgspec.inspect.DateTimeType)

    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return tuple(f.name for f in info.fields if holds_datetime(f.type))


class Event(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag=True):
    """Base of every recorded fact; the tag (`type`) is the class name."""

    def __post_init__(self) -> None:
        for name in _timestamp_fields(type(self)):
            require_utc(type(self).__name__, name, getattr(self, name))

    @property
    def stream(self) -> str:
        """The stream (aggregate) this fact belongs to; versions are counted per stream."""
        raise NotImplementedError


class EditionDrafted(Event, frozen=True):
    """A changelog edition of the methodology was written down (methodology section 20)."""

    version: str
    drafted: date
    summary: str

    @property
    def stream(self) -> str:
        return f"edition:{self.version}"


DomainEvent = EditionDrafted
"""The tagged union the ledger decodes; extend it with every new event type."""
