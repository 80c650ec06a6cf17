"""What every recorded fact and every input record has in common.

Schemas only grow: a new field goes last and has a default; a breaking change is a new type.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Annotated

import msgspec
import msgspec.inspect

Count = Annotated[int, msgspec.Meta(ge=0)]
Text = Annotated[str, msgspec.Meta(min_length=1)]


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


class Value(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of the values events carry (and input records reuse)."""


class InputRecord(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="kind"
):
    """Base of the records `argusic ingest` reads, told apart by their `kind`."""
