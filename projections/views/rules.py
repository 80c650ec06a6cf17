"""The rules a reader of the methodology page needs, read from the code that applies them and
from the orchestrator's configuration in force (issue 28): the rubric (section 8), the spread
rule (section 10), the verdict chain per edition (section 11), environment QA (section 15), the
budgets per tier and the key's spending limit (section 7) and the evidence rules (section 17).
Nothing here is typed in twice: each figure is the constant the rule itself uses."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain import environment_qa, scoring, spread, verdict
from domain.events import AttemptKind, Tier
from domain.evidence import generated_keys, quoting, redaction
from domain.evidence.pipeline import SECTION_17
from domain.runner import budgets
from domain.runner.config import OrchestratorConfig
from domain.scoring import Outcome, RubricLine
from domain.verdict import Stronger


class RubricLineView(msgspec.Struct, frozen=True, kw_only=True):
    line: RubricLine
    points: int


class DepthView(msgspec.Struct, frozen=True, kw_only=True):
    depth: str
    points: int


class Rubric(msgspec.Struct, frozen=True, kw_only=True):
    """Section 8: the four lines and their most points, the depth's three tiers, the outcomes."""

    lines: list[RubricLineView]
    total: int
    depth: list[DepthView]
    unverified: int
    """Installed and started with nothing gone wrong, not verified: its score, still a fail."""
    outcomes: list[Outcome]


class SpreadRule(msgspec.Struct, frozen=True, kw_only=True):
    """Section 10: a set is unstable when its spread is strictly above `unstable_above` %."""

    formula: str
    unstable_above: float


class ChainRow(msgspec.Struct, frozen=True, kw_only=True):
    """Section 11: the attempts that decide a failing project under one edition, in order."""

    edition: str
    steps: list[AttemptKind]
    stronger: Stronger


class EnvironmentQa(msgspec.Struct, frozen=True, kw_only=True):
    """Section 15: a project every agent failed is under review (at least `agents_without_roster`
    agents where its cycle has no roster) until a person finds `environment` or `project`."""

    agents_without_roster: int
    findings: list[str]


class BudgetRow(msgspec.Struct, frozen=True, kw_only=True):
    tier: Tier
    minutes: float


class Budgets(msgspec.Struct, frozen=True, kw_only=True):
    """Section 7, point 3, as the orchestrator is configured: minutes per tier; heavy from
    `heavy_from` for a project marked heavy or a repository over `heavy_repository_mb`."""

    tiers: list[BudgetRow]
    heavy_from: str
    heavy_repository_mb: int


class TransformRule(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    version: int
    applies_to: str
    """`stored and served` (before anything is written), `served` or `quoted text`."""


class EvidenceRules(msgspec.Struct, frozen=True, kw_only=True):
    """Section 17: the transforms in the order applied, and the markers a masked value becomes."""

    transforms: list[TransformRule]
    redacted_marker: str
    private_key_marker: str


class Rules(msgspec.Struct, frozen=True, kw_only=True):
    rubric: Rubric
    spread: SpreadRule
    verdict_chain: list[ChainRow]
    environment_qa: EnvironmentQa
    budgets: Budgets
    key_limit_usd: float
    evidence: EvidenceRules


def rubric() -> Rubric:
    lines = [RubricLineView(line=line, points=points) for line, points in scoring.RUBRIC.items()]
    return Rubric(
        lines=lines,
        total=sum(line.points for line in lines),
        depth=[DepthView(depth=d, points=p) for d, p in scoring.DEPTH.items()],
        unverified=scoring.UNVERIFIED,
        outcomes=list(scoring.OUTCOMES),
    )


def chains(editions: Iterable[str]) -> list[ChainRow]:
    rows = []
    for edition in editions:
        chain = verdict.verdict_chain(edition)
        rows.append(ChainRow(edition=edition, steps=list(chain.steps), stronger=chain.stronger))
    return rows


def evidence_rules() -> EvidenceRules:
    stored = {redaction.NAME}
    transforms = [
        TransformRule(
            name=name,
            version=version,
            applies_to="stored and served" if name in stored else "served",
        )
        for name, version in SECTION_17
    ]
    transforms.append(
        TransformRule(name=quoting.NAME, version=quoting.VERSION, applies_to="quoted text")
    )
    return EvidenceRules(
        transforms=transforms,
        redacted_marker=redaction.MARKER,
        private_key_marker=generated_keys.MARKER,
    )


def rules(editions: Iterable[str], config: OrchestratorConfig) -> Rules:
    """The rules in force for `editions` (the changelog's, in order) under `config`."""
    return Rules(
        rubric=rubric(),
        spread=SpreadRule(formula=spread.FORMULA, unstable_above=float(spread.UNSTABLE_ABOVE)),
        verdict_chain=chains(editions),
        environment_qa=EnvironmentQa(
            agents_without_roster=environment_qa.AGENTS_WITHOUT_ROSTER,
            findings=list(environment_qa.FINDINGS),
        ),
        budgets=Budgets(
            tiers=[
                BudgetRow(tier=tier, minutes=float(getattr(config.budgets, tier)))
                for tier in budgets.TIERS
            ],
            heavy_from=".".join(map(str, budgets.HEAVY_FROM)),
            heavy_repository_mb=budgets.HEAVY_REPOSITORY_MB,
        ),
        key_limit_usd=float(config.keys.limit_usd),
        evidence=evidence_rules(),
    )
