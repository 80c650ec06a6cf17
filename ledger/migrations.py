"""Ordered SQL files per dialect (`migrations/<dialect>/NNNN_name.sql`), each applied once."""

from __future__ import annotations

import hashlib
from pathlib import Path

from domain.errors import IntegrityFailure

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class Migration:
    """One ordered SQL file of `migrations/<dialect>/`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.version = int(path.name.split("_", 1)[0])
        self.name = path.stem
        self.sql = path.read_text()
        self.sha256 = hashlib.sha256(self.sql.encode()).hexdigest()


class MigrationError(IntegrityFailure):
    """An applied migration file was changed afterwards."""


def migrations(dialect: str) -> list[Migration]:
    return [Migration(p) for p in sorted((MIGRATIONS / dialect).glob("[0-9]*_*.sql"))]
