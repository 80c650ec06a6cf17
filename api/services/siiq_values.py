"""Section 8 on a newly used Epoch AI snapshot: definitions and revisions freeze a benchmark,
new and changed numbers are cross-checked, then published or held (the new-leader guard last);
re-matched names and deleted results leave."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from api.services.siiq_run import Run
from api.services.siiq_source_guards import score_columns, shape, shapes
from domain.events import (
    BenchmarkFrozen,
    CrossCheck,
    CrossCheckRejected,
    HoldObserved,
    PublishedValue,
    RevisionObserved,
    ValueHeld,
    value_key,
)
from domain.siiq import guards as rules
from domain.siiq.benchmark_sources import (
    BENCHMARKS,
    BY_TABLE,
    ORGANIZATION,
    row_identity,
)
from domain.siiq.benchmark_sources import (
    other_run as other_benchmark,
)
from domain.siiq.crosscheck import Claim, claim_of, confirmed, family_problem
from domain.siiq.guards import Seen
from domain.siiq.index import calibrated_parameters
from domain.siiq.matching import EPOCH
from domain.siiq.records import Result

LEADER = "new leader"


def _claim(value: PublishedValue) -> Claim:
    result = value.result
    identity = row_identity(result.benchmark, value.row)
    return claim_of(
        result.model, result.benchmark, value.row, BENCHMARKS[result.benchmark].column, identity
    )


def cross_check(run: Run, values: Sequence[PublishedValue]) -> list[PublishedValue]:
    """Section 8: each number re-read in its row by the checker, a model of another family
    than the model's whose number it reads (a number of its own family is not asked, and so
    not confirmed), at the value about to be used; every answer is recorded on the update
    with the checker's model and family, the refused ones also as rejected. Returns the
    confirmed values."""
    checker = run.checker
    assert checker is not None
    problems = [family_problem(checker.family, str(v.row.get(ORGANIZATION) or "")) for v in values]
    asked = [v for v, problem in zip(values, problems, strict=True) if problem is None]
    answers = iter(checker.ask([_claim(v) for v in asked]) if asked else [])
    passed = []
    for value, problem in zip(values, problems, strict=True):
        answer = next(answers) if problem is None else f"not asked: {problem}"
        ok = problem is None and confirmed(answer)
        r = value.result
        run.checks.append(
            CrossCheck(
                model=r.model,
                benchmark=r.benchmark,
                value=r.score,
                confirmed=ok,
                answer=answer,
                checker=checker.name,
                family=checker.family,
            )
        )
        if ok:
            passed.append(value)
        else:
            run.events.append(
                CrossCheckRejected(
                    at=run.now, model=r.model, benchmark=r.benchmark, value=r.score, answer=answer
                )
            )
    return passed


def check_values(run: Run) -> None:
    """Section 8 on a newly used Epoch AI snapshot: changed definitions and revisions freeze
    their benchmark; held values are observed; new and changed numbers of the other
    benchmarks are cross-checked, then held or published; the new-leader guard last."""
    candidates, published = run.candidates(), run.published()
    for name, changed in sorted(_definition_changes(run).items()):
        if name not in run.guards.frozen:
            _freeze(run, name, "definition", f"definition changed: {changed}")
    by_benchmark: dict[str, list[str]] = {}
    for key, value in published.items():
        by_benchmark.setdefault(value.result.benchmark, []).append(key)
    moved = {
        name: [
            k
            for k in keys
            if k in candidates
            and rules.moved(published[k].result.score, candidates[k].result.score)
        ]
        for name, keys in by_benchmark.items()
    }
    for name, keys in sorted(by_benchmark.items()):
        frozen = name in run.guards.frozen or name in run.frozen_now
        if not frozen and rules.is_revision(len(keys), len(moved[name])):
            _freeze(
                run,
                name,
                "revision",
                f"{len(moved[name])} of {len(keys)} results moved by more than half a point",
            )
    revising = {
        e.benchmark for e in run.events if isinstance(e, BenchmarkFrozen) and e.kind == "revision"
    }
    revising |= {n for n, f in run.guards.frozen.items() if f.frozen.kind == "revision"}
    for name in sorted(revising):
        _observe_revision(run, name, moved.get(name, []))
    held_keys = {h.held.candidate.key: h for h in run.guards.holds.values()}
    for hold in run.guards.holds.values():
        found = candidates.get(hold.held.candidate.key)
        own = run.snapshot_for(hold.held.benchmark)
        seen = Seen(own, run.now, None if found is None else found.result.score)
        run.observed[hold.held.hold] = (seen, found)
        run.events.append(
            HoldObserved(
                hold=hold.held.hold,
                snapshot=own,
                first_seen=run.now,
                value=seen.value,
                candidate=found,
            )
        )
    _rematched(run)
    frozen_names = run.frozen_now | set(run.guards.frozen)
    changes = [
        v
        for k, v in sorted(candidates.items())
        if v.result.benchmark not in frozen_names
        and k not in held_keys
        and (k not in published or published[k].result.score != v.result.score)
    ]
    _hold_or_publish(run, cross_check(run, changes))


def _definition_changes(run: Run) -> dict[str, str]:
    """Section 8: the benchmarks whose definition changed in this snapshot (score column
    renamed or gone, scale, chance, ceiling, n), each with the first change found."""
    intake, before = run.intake(), run.guards.used.get(EPOCH)
    definitions = {b.benchmark: b for b in intake.benchmarks} if intake else {}
    old_tables = {t.name: t for t in shape(before.tables)} if before else {}
    columns = score_columns(EPOCH, list(old_tables.values()))
    scores: dict[str, list[float]] = {}
    for value in run.candidates().values():
        scores.setdefault(value.result.benchmark, []).append(value.result.score)
    changes: dict[str, str] = {}
    for table in shape(shapes(run.sources, EPOCH)):
        old, column = old_tables.get(table.name), columns.get(table.name)
        gone = (
            None if old is None or column is None else rules.score_column_gone(old, table, column)
        )
        entry = BY_TABLE.get((EPOCH, table.name.rsplit("#", 1)[-1]))
        if gone is not None and entry is not None:
            changes[entry[0]] = gone
    for name, new in definitions.items():
        old_definition = run.guards.definitions.get(name)
        if old_definition is None:
            continue
        changed = rules.scale_changed(
            scores.get(name, []), BENCHMARKS[name].scale
        ) or rules.definition_changed(old_definition, new)
        if changed is not None:
            changes.setdefault(name, changed)

    return changes


def _freeze(run: Run, name: str, kind: Literal["definition", "revision"], reason: str) -> None:
    run.frozen_now.add(name)
    run.events.append(
        BenchmarkFrozen(
            benchmark=name, at=run.now, kind=kind, reason=reason, snapshot=run.snapshot_for(name)
        )
    )


def _observe_revision(run: Run, name: str, moved: Sequence[str]) -> None:
    """A revised benchmark in this snapshot: the values of its revision (those that moved now
    or before), each new number cross-checked once."""
    candidates = run.candidates()
    freeze = run.guards.frozen.get(name)
    before = freeze.observed if freeze else []
    keys = set(moved) | {k for o in before for k in o.values}
    last = {k: v for o in before for k, v in o.values.items()}
    rejected_before = {k for o in before for k in o.rejected}
    fresh = [
        candidates[k]
        for k in sorted(keys)
        if k in candidates
        and last.get(k) != candidates[k].result.score
        and k not in rejected_before
    ]
    passed = {v.key for v in cross_check(run, fresh)}
    refused = {v.key for v in fresh} - passed
    values = {
        k: (candidates[k].result.score if k in candidates else None) for k in sorted(keys - refused)
    }
    observed = RevisionObserved(
        benchmark=name,
        snapshot=run.snapshot_for(name),
        first_seen=run.now,
        values=values,
        candidates=[candidates[k] for k in sorted(values) if k in candidates],
        rejected=sorted(refused),
    )
    run.revised[name] = observed
    run.events.append(observed)


def _model_results(values: Mapping[str, PublishedValue], model: str) -> list[Result]:
    return [v.result for v in values.values() if v.result.model == model]


def _hold_or_publish(run: Run, passed: Sequence[PublishedValue]) -> None:
    """Section 8: a confirmed number that moved more than 10 points or lies more than 4 SD from
    its model's other results is held; the rest are published, unless the model would become
    the new leader."""
    published = run.published()
    calibration = run.siiq.in_force.calibration if run.siiq.in_force else None
    frozen = calibrated_parameters(calibration) if calibration else None
    fresh: list[PublishedValue] = []
    for value in passed:
        old = published.get(value.key)
        before = None if old is None else old.result.score
        z = z_before = None
        if frozen is not None:
            others = _model_results(published, value.result.model)
            z = rules.prediction_z(value.result, others, *frozen)
            z_before = None if old is None else rules.prediction_z(old.result, others, *frozen)
        reason = rules.hold_reason(before, value.result.score, z, z_before)
        if reason is not None and not rules.confirmed_by_other_run(
            value.result.score, other_run(run, value)
        ):
            _hold(run, value, before, reason)
        else:
            fresh.append(value)
    leaders = _new_leaders(run, fresh)
    for value in fresh:
        if value.result.model in leaders:
            _hold(
                run,
                value,
                None if value.key not in published else published[value.key].result.score,
                LEADER,
                leaders[value.result.model],
            )
        else:
            run.publish_value(value)


def other_run(run: Run, value: PublishedValue) -> float | None:
    other = other_benchmark(value.result.benchmark)
    found = run.candidates().get(value_key(value.result.model, other)) if other else None
    return None if found is None else found.result.score


def _hold(
    run: Run, value: PublishedValue, before: float | None, reason: str, si_iq: float | None = None
) -> None:
    hold = f"{value.key}@{run.now:%Y-%m-%dT%H:%MZ}"
    run.events.append(
        ValueHeld(
            hold=hold,
            model=value.result.model,
            benchmark=value.result.benchmark,
            value=value.result.score,
            published=before,
            reason=reason,
            since=run.now,
            snapshot=run.snapshot_for(value.result.benchmark),
            candidate=value,
            si_iq=si_iq,
        )
    )
    run.note(held=[*run.report.held, hold])


def _new_leaders(run: Run, fresh: Sequence[PublishedValue]) -> dict[str, float]:
    """Section 8's new-leader guard: models not ranked before that the fresh values would put
    more than 5 points above the current leader, with the score they would have."""
    if not fresh:
        return {}
    now = run.index(run.published())
    if now is None:
        return {}
    ranked = {m.slug for m in now.models if m.ranked}
    leader = max((m.si_iq_full for m in now.models if m.ranked), default=None)
    proposed = run.index({**run.published(), **run.publish, **{v.key: v for v in fresh}})
    assert proposed is not None
    touched = {v.result.model for v in fresh}
    return {
        m.slug: m.si_iq_full
        for m in proposed.models
        if m.slug in touched
        and m.ranked
        and rules.overtakes_leader(m.slug in ranked, m.si_iq_full, leader)
    }


def missing_values(run: Run) -> set[str]:
    """The published values of unfrozen benchmarks that the current export no longer lists."""
    candidates = run.candidates()
    frozen = run.frozen_now | set(run.guards.frozen)
    return {
        k
        for k, v in run.published().items()
        if k not in candidates and v.result.benchmark not in frozen and k not in run.purged
    }


def _identity(value: PublishedValue) -> tuple[str, str]:
    return value.result.benchmark, row_identity(value.result.benchmark, value.row)


def _rematched(run: Run) -> None:
    """Section 8: when a source's name is matched to another model, the old match goes at once,
    from the archived days too (its row now counts for the other model)."""
    now = {_identity(v): k for k, v in run.candidates().items()}
    for key, value in run.published().items():
        moved_to = now.get(_identity(value))
        if key not in run.candidates() and moved_to is not None and moved_to != key:
            run.purged.add(key)


def due_removals(run: Run) -> None:
    """Section 8: a result Epoch AI deleted is removed six hours after it went (a source that
    keeps last values would keep it)."""
    missing = run.guards.missing
    for key, since in missing.items():
        value = run.published().get(key)
        if value is not None and rules.removal_due(value.source == EPOCH, since, run.now):
            run.removed.add(key)
            run.correction = True
