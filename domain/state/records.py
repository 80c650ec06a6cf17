"""What the folded state keeps of each fact, with the position it arrived at."""

from __future__ import annotations

from typing import Literal, NamedTuple

import msgspec

from domain.environment_qa import Finding
from domain.events import EditionDrafted, OperatorActed, RenderMade, RunRecorded
from domain.scoring import Outcome, ScoreLines


class Edition(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    event: EditionDrafted


class Run(msgspec.Struct, frozen=True, kw_only=True):
    """A recorded run and the ledger position it arrived at."""

    position: int
    event: RunRecorded


class Rendered(msgspec.Struct, frozen=True, kw_only=True):
    """A render of a run's served recording (section 17) and the position it was recorded at."""

    position: int
    event: RenderMade


class Step(msgspec.Struct, frozen=True):
    """One transform of section 17 as recorded: what went in and what came out, by SHA-256
    (the input empty where a security redaction changed what arrived, issue 26)."""

    transform: str
    input_sha256: str
    output_sha256: str


class EvidenceCopy(msgspec.Struct, kw_only=True):
    """A run's file as served (section 17): the transforms applied in order, or why withheld."""

    raw_sha256: str
    served_sha256: str | None = None
    stored_sha256: str | None = None
    """The file as kept (section 17: security-redacted as it arrived), where it was."""
    transforms: list[str] = msgspec.field(default_factory=list)
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    withheld: str | None = None
    positions: list[int] = msgspec.field(default_factory=list)
    steps: list[Step] = msgspec.field(default_factory=list)


class Noted(msgspec.Struct, frozen=True, kw_only=True):
    """A reason recorded against a run after it (a rerun request, a voiding), and where."""

    position: int
    reason: str
    acted_at: int | None = None
    """The position of the signed action that decided it (none for the evidence's own)."""
    by_rule: bool = False
    """Asked for by the runner's rules for a run invalid by its own record: sets nothing aside."""


class Review(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    finding: Finding
    reviewer: str
    note: str


class Dispute(msgspec.Struct, kw_only=True):
    """Section 19: a dispute of a run's result and, once resolved, how."""

    id: str
    run_id: str
    claimant: str
    claim: str
    opened_at: int
    outcome: Literal["upheld", "rerun"] | None = None
    note: str | None = None
    resolved_at: int | None = None


class OperatorKey(msgspec.Struct, kw_only=True):
    """A registered operator key, its role, and the last sequence it signed."""

    name: str
    key_id: str
    public_key: str
    role: Literal["owner", "operator"]
    registered_at: int
    revoked_at: int | None = None


class Approval(msgspec.Struct, frozen=True, kw_only=True):
    """An approval of the ledger up to `position` for the public, made at `at`."""

    position: int
    at: int
    operator: str


class Window(msgspec.Struct, frozen=True, kw_only=True):
    """The last signed action whose authority held, and the positions its facts are at."""

    acted: OperatorActed
    position: int
    end: int
    """The last position of its facts (its own position plus the facts it recorded)."""


class Authority(msgspec.Struct, kw_only=True):
    """Who may decide, as of a position (ARCHITECTURE.md, "Authority")."""

    ledger: str | None = None
    """The ledger's checkpoint origin, as its first owner's registration names it."""
    operators: dict[str, OperatorKey] = msgspec.field(default_factory=dict)
    """Key id: the operator's key."""
    sequences: dict[str, int] = msgspec.field(default_factory=dict)
    """Key id: the sequence number of the last action it signed."""
    approvals: list[Approval] = msgspec.field(default_factory=list)
    window: Window | None = None

    def published(self) -> Approval | None:
        """The latest approval for the public (section 1), if any."""
        return self.approvals[-1] if self.approvals else None

    def next_sequence(self, key_id: str) -> int:
        return self.sequences.get(key_id, 0) + 1


class Judged(NamedTuple):
    """A run as the rules judge it: why it does not count, or its outcome and score lines."""

    run: Run
    invalid_reason: str | None
    outcome: Outcome | None
    lines: ScoreLines | None

    @property
    def event(self) -> RunRecorded:
        return self.run.event
