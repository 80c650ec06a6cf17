"""One root for every error Argusic raises on purpose, mixed with the builtin it refines (as
eventsourcing's `IntegrityError(DatabaseError, RecordConflictError)` does), so entry points map
only our own errors: a stray `KeyError` is a bug (a 500 and a log line), never a quiet 404."""

from __future__ import annotations


class ArgusicError(Exception):
    """Root of the errors entry points turn into an exit code or an HTTP status."""


class NotFound(ArgusicError, LookupError):
    """What a request names is not there (a run, a project, a position outside the ledger)."""


class InvalidInput(ArgusicError, ValueError):
    """Input that can never be accepted as given (a record, a file, a request's values)."""


class Rejected(InvalidInput):
    """An input breaks a rule of the methodology; nothing of it may be recorded."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{reason} ({rule})")
        self.rule = rule
        self.reason = reason


class UsageError(ArgusicError, ValueError):
    """A command or query was asked for in a way it cannot be answered (bad option values)."""


class SetupError(ArgusicError, RuntimeError):
    """The configuration or the database state does not allow the command."""


class StoreUnavailable(SetupError):
    """An outside store (the evidence's S3 gateway) did not answer; what it names (its address)
    is for the operator's log, not for a public answer."""


class IntegrityFailure(ArgusicError, RuntimeError):
    """Stored data contradicts itself: the ledger or its schema was changed behind our back."""
