"""The editions table of the changelog (methodology section 20)."""

from __future__ import annotations

from datetime import date

import msgspec

from domain.editions import version_key
from domain.events import EditionDrafted
from ledger.ledger import RecordedEvent


class EditionRow(msgspec.Struct, kw_only=True):
    version: str
    drafted: date
    summary: str
    effective_since: date | None = None


class Editions(msgspec.Struct, kw_only=True):
    editions: list[EditionRow] = msgspec.field(default_factory=list)


class EditionsProjection:
    name = "editions.v1"
    model_type = Editions

    def initial(self) -> Editions:
        return Editions()

    def apply(self, model: Editions, recorded: RecordedEvent) -> Editions:
        match recorded.event:
            case EditionDrafted(version=version, drafted=drafted, summary=summary):
                model.editions.append(EditionRow(version=version, drafted=drafted, summary=summary))
                model.editions.sort(key=lambda row: version_key(row.version))
        return model
