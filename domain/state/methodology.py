"""The methodology's state, and the queries the figures ask of it: a run judged, a run's set,
projects under review in a cycle, the source types in use, what the public may see."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import msgspec

from domain.editions import version_key
from domain.environment_qa import is_under_review
from domain.errors import NotFound
from domain.events import (
    AgentRegistered,
    CycleOpened,
    Pool,
    PoolSelected,
    ReproductionReported,
    ReproductionRequested,
    RunRecorded,
    SourceType,
)
from domain.leaderboard import ScoredRun, Standing, leaderboard
from domain.reproduction import reproduction_report
from domain.runs import invalid_reason, repeated, run_outcome, run_score
from domain.scoring import Outcome, passed
from domain.source_types import SourceRow, source_table
from domain.state.records import (
    Approval,
    Authority,
    Dispute,
    Edition,
    EvidenceCopy,
    Judged,
    Noted,
    Rendered,
    Review,
    Run,
)

SetKey = tuple[str, str, str]
"""A set (sections 7 and 9): the runs of one agent on one project in one cycle."""


def set_key(run: RunRecorded) -> SetKey:
    return (run.agent.id, run.project.id, run.cycle)


class Methodology(msgspec.Struct, kw_only=True):
    editions: dict[str, Edition] = msgspec.field(default_factory=dict)
    runs: dict[str, Run] = msgspec.field(default_factory=dict)
    """Run id: the run, in ledger order (a run is recorded once, so arrival order holds)."""
    sets: dict[str, dict[str, dict[str, list[str]]]] = msgspec.field(default_factory=dict)
    """Cycle, project, agent: the set's run ids, in ledger order."""
    reviews: dict[str, dict[str, list[Review]]] = msgspec.field(default_factory=dict)
    """Project, cycle: its reviews there, in ledger order."""
    evidence: dict[str, dict[str, EvidenceCopy]] = msgspec.field(default_factory=dict)
    """Run id: its files (and quoted text) by kind, as served."""
    reruns: dict[str, Noted] = msgspec.field(default_factory=dict)
    voided: dict[str, Noted] = msgspec.field(default_factory=dict)
    agents: dict[str, AgentRegistered] = msgspec.field(default_factory=dict)
    cycles: dict[str, CycleOpened] = msgspec.field(default_factory=dict)
    closed: dict[str, int] = msgspec.field(default_factory=dict)
    """Cycle: the position of its closing."""
    disputes: dict[str, Dispute] = msgspec.field(default_factory=dict)
    reproductions: dict[str, list[ReproductionRequested]] = msgspec.field(default_factory=dict)
    """Run id: its reproduction requests, in the order made (section 18)."""
    reproduced: dict[str, Run] = msgspec.field(default_factory=dict)
    """Reproduction runs by id: recorded apart, so they count in no figure."""
    reproduction_reports: dict[str, ReproductionReported] = msgspec.field(default_factory=dict)
    """Request: its report, once every run of it ended."""
    instructions: dict[str, int] = msgspec.field(default_factory=dict)
    """SHA-256 of each version of the standard instructions: the position it was published at."""
    stronger_requested: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    """Cycle, project: the position where its stronger agent was asked for (section 11)."""
    candidates: dict[str, int] = msgspec.field(default_factory=dict)
    """Each project recorded as a candidate for the pool: the position of its last record."""
    excluded: dict[str, str] = msgspec.field(default_factory=dict)
    """Candidates an operator excluded from the pool, with the reason (section 6)."""
    selections: dict[str, PoolSelected] = msgspec.field(default_factory=dict)
    """Cycle: its pools as a signed `select_pool` drew them (section 6)."""
    pools_fixed_at: dict[str, int] = msgspec.field(default_factory=dict)
    """Cycle: the position its pools were last fixed at (its record, or a `select_pool` draw)."""
    authority: Authority = msgspec.field(default_factory=Authority)
    """Operators' keys, their sequences, and the approvals for the public."""
    renders: dict[str, list[Rendered]] = msgspec.field(default_factory=dict)
    """Run id: its renders (section 17, the presentation layer), in the order made."""

    def ordered_editions(self) -> list[Edition]:
        return sorted(self.editions.values(), key=lambda e: version_key(e.event.version))

    def find_run(self, run_id: str, as_of: int) -> Run:
        run = self.runs.get(run_id) or self.reproduced.get(run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} as of position {as_of}")
        return run

    def rerun_reason(self, run_id: str) -> str | None:
        """Why the run is repeated (its evidence withheld, an environment fault), if it is."""
        requested = self.reruns.get(run_id)
        return None if requested is None else requested.reason

    def set_aside(self, run_id: str) -> str | None:
        """Why the ledger set a recorded run aside: voided, or repeated."""
        if run_id in self.voided:
            return self.voided[run_id].reason
        again = self.reruns.get(run_id)
        return None if again is None or again.by_rule else repeated(again.reason)

    def set_aside_at(self, run_id: str) -> int | None:
        """The position of the signed action that set a recorded run aside, if one did."""
        noted = self.voided.get(run_id) or self.reruns.get(run_id)
        return None if noted is None else noted.acted_at

    def judge(self, run: Run) -> Judged:
        """The run under its own edition, with what was recorded against it since."""
        aside = self.set_aside(run.event.run_id)
        return Judged(
            run=run,
            invalid_reason=invalid_reason(run.event, aside),
            outcome=run_outcome(run.event, aside),
            lines=run_score(run.event, aside),
        )

    def reported(self, request: ReproductionRequested) -> ReproductionReported | None:
        """Section 18: the report of a reproduction once each of its runs is recorded (a run
        cut short is compared as it ended: invalid, without an outcome); None before."""
        again = [self.reproduced.get(run_id) for run_id in request.runs]
        original = self.runs.get(request.run_id)
        if original is None or None in again:
            return None
        judged = [self.judge(run) for run in again if run is not None]
        return reproduction_report(
            request.request,
            original.event,
            self.judge(original).outcome,
            [
                (j.event, j.outcome, None if j.lines is None else float(j.lines.total))
                for j in judged
            ],
        )

    def judged(self) -> list[Judged]:
        """Every run, judged, in ledger order."""
        return [self.judge(run) for run in self.runs.values()]

    def set_members(self, key: SetKey) -> list[Run]:
        """The runs of a set, valid or not, in ledger order."""
        agent, project, cycle = key
        members = self.sets.get(cycle, {}).get(project, {}).get(agent, [])
        return [self.runs[run_id] for run_id in members]

    def runs_of(self, cycle: str) -> Iterator[Run]:
        """The cycle's runs, valid or not, in ledger order."""
        return (run for run in self.runs.values() if run.event.cycle == cycle)

    def cycle_outcomes(self, cycle: str, project: str) -> Iterator[tuple[str, Run, Outcome | None]]:
        """Each agent's runs on a project in a cycle, with their outcomes (None for an invalid
        one): `judge` without the score lines, which nothing here reads."""
        for agent, run_ids in self.sets.get(cycle, {}).get(project, {}).items():
            for run_id in run_ids:
                run = self.runs[run_id]
                yield agent, run, run_outcome(run.event, self.set_aside(run_id))

    def source_rows(self) -> list[SourceRow]:
        """Section 6a: the source-type table; a project counts once a valid run of it is
        recorded and it is published (the public pool, or a secret pool whose cycle closed)."""
        tested = [
            (run.event.project.source_type, self.pool_shown(run), run.event.project.id)
            for run_id, run in self.runs.items()
            if self.valid(run_id, run)
        ]
        return source_table(tested)

    def sources_in_use(self) -> set[SourceType]:
        """Section 6a: the source types a published project's valid run has put in use, as
        `source_rows` has them; a run's validity is worked out only while its type is not yet
        known to be in use (every public page asks this, of every run of every cycle)."""
        in_use: set[SourceType] = set()
        for run_id, run in self.runs.items():
            source = run.event.project.source_type
            if source in in_use or self.pool_shown(run) != "public":
                continue
            if self.valid(run_id, run):
                in_use.add(source)
        return in_use

    def pool_shown(self, run: Run) -> Pool:
        """Section 6: the pool a run's project is shown in: the public one once its cycle is
        closed (the secret pool is published then)."""
        return "public" if run.event.cycle in self.closed else run.event.project.pool

    def valid(self, run_id: str, run: Run) -> bool:
        """Whether the run counts (`judge`'s validity alone, without its outcome and score)."""
        return invalid_reason(run.event, self.set_aside(run_id)) is None

    def sponsor(self, agent: str) -> str | None:
        """Section 13: who sponsored the agent's compute, shown beside its results."""
        registered = self.agents.get(agent)
        return None if registered is None else registered.sponsor

    def roster(self, cycle: str) -> list[str] | None:
        """The cycle's agents, where it has a record."""
        record = self.cycles.get(cycle)
        return None if record is None else record.agents

    def under_review(self, cycle: str) -> set[str]:
        """Section 15, for every project of a cycle at once."""
        in_use = self.sources_in_use()
        return {p for p in self.sets.get(cycle, {}) if self._under_review_in(cycle, p, in_use)}

    def _under_review_in(self, cycle: str, project: str, in_use: set[SourceType]) -> bool:
        """A `project` finding settles the cycle; runs an `environment` finding voided no
        longer count; a source type not started counts nowhere (section 6a)."""
        if any(r.finding == "project" for r in self.reviews.get(project, {}).get(cycle, [])):
            return False
        by_agent: dict[str, list[Outcome]] = defaultdict(list)
        for agent, run, outcome in self.cycle_outcomes(cycle, project):
            if run.event.project.source_type not in in_use:
                return False
            if outcome is not None:
                by_agent[agent].append(outcome)
        return is_under_review(by_agent, self.roster(cycle))

    def failed_runs(self, cycle: str, project: str) -> list[str]:
        """The valid runs of a cycle on a project, none of them a pass (it is under review)."""
        return [
            run.event.run_id for _, run, outcome in self.cycle_outcomes(cycle, project) if outcome
        ]

    def scored_runs(self, cycle: str) -> list[ScoredRun]:
        """Sections 6a and 9: the cycle's valid runs of source types in use, in ledger order."""
        in_use = self.sources_in_use()
        return [
            ScoredRun(
                j.event.agent.id,
                j.event.project.id,
                j.lines.total,
                passed(j.outcome),
                j.event.attempt == "stronger",
                j.event.run_id,
            )
            for j in map(self.judge, self.runs_of(cycle))
            if j.outcome is not None
            and j.lines is not None
            and j.event.project.source_type in in_use
        ]

    def standings(self, cycle: str, scored: list[ScoredRun] | None = None) -> list[Standing]:
        """Sections 9 and 10: the cycle's agents, by the middle of their per-project middles
        (`scored`: the cycle's `scored_runs`, where the caller has them already)."""
        scored = self.scored_runs(cycle) if scored is None else scored
        return leaderboard(scored, self.under_review(cycle))

    def published(self) -> Approval | None:
        """The latest approval for the public (section 1), if any."""
        return self.authority.published()

    def withheld(self, run_id: str) -> bool:
        """Whether a file of the run is withheld (section 17: it cannot be shown safe)."""
        return any(copy.withheld for copy in self.evidence.get(run_id, {}).values())

    def run_disputes(self, run_id: str) -> list[Dispute]:
        return [d for d in self.disputes.values() if d.run_id == run_id]
