"""What the public may see of the state (methodology sections 5, 6, 6a and 18): the secret pool's
projects, their runs and their evidence stay out of every public figure until their cycle is
closed; the secret pool of an open cycle is not listed; a project of a source type not yet in
use has no run, verdict, count or page of its own (the source table alone names its type)."""

from __future__ import annotations

import msgspec

from domain.state.methodology import Methodology


def hidden_runs(state: Methodology) -> set[str]:
    """Section 6: "20% grupo secreto ... se publica solo cuando termina el ciclo"; section 6a:
    a source type counts as in use from its first real run, "y no un día antes"."""
    in_use = state.sources_in_use()
    return {
        run_id
        for run_id, run in state.runs.items()
        if (run.event.project.pool == "secret" and run.event.cycle not in state.closed)
        or run.event.project.source_type not in in_use
    }


def public_pool_unpublished(state: Methodology, cycle: str) -> int | None:
    """Section 6: the public pool's list and commits "se publican antes de cada ciclo": the
    position a cycle's pools were last fixed at, while no approval covers it yet (else None)."""
    fixed = state.pools_fixed_at.get(cycle)
    if fixed is None or any(a.position >= fixed for a in state.authority.approvals):
        return None
    return fixed


def public_state(state: Methodology) -> Methodology:
    """The state without what the public may not see yet: never the pool's candidates (they
    would narrow the secret pool) nor, before its cycle is closed, a secret list or its salt."""
    return _open_pools_sealed(_secret_runs_hidden(state))


def _open_pools_sealed(state: Methodology) -> Methodology:
    """Section 6: of an open cycle's selection, only the public pool and the commitment."""
    if not state.candidates and not state.excluded and not state.selections:
        return state
    return msgspec.structs.replace(
        state,
        candidates={},
        excluded={},
        selections={
            cycle: chosen
            if cycle in state.closed
            else msgspec.structs.replace(
                chosen,
                secret=[],
                salt="",
                seed="",
                heavy=[p for p in chosen.heavy if p in {q.project for q in chosen.public}],
            )
            for cycle, chosen in state.selections.items()
        },
    )


def _secret_runs_hidden(state: Methodology) -> Methodology:
    """The secret pool's runs, and every run of a source type not in use, left out; the secret
    pool of an open cycle unlisted."""
    hidden = hidden_runs(state)
    open_secret = any(
        project.pool == "secret"
        for cycle in state.cycles.values()
        if cycle.id not in state.closed
        for project in cycle.projects
    )
    if not hidden and not open_secret:
        return state
    secret = {(r.event.project.id, r.event.cycle) for r in map(state.runs.__getitem__, hidden)}
    return msgspec.structs.replace(
        state,
        runs={k: v for k, v in state.runs.items() if k not in hidden},
        sets={
            cycle: {
                project: agents
                for project, agents in projects.items()
                if (project, cycle) not in secret
            }
            for cycle, projects in state.sets.items()
        },
        reviews={
            project: {c: r for c, r in cycles.items() if (project, c) not in secret}
            for project, cycles in state.reviews.items()
        },
        evidence={k: v for k, v in state.evidence.items() if k not in hidden},
        renders={k: v for k, v in state.renders.items() if k not in hidden},
        reruns={k: v for k, v in state.reruns.items() if k not in hidden},
        voided={k: v for k, v in state.voided.items() if k not in hidden},
        disputes={k: v for k, v in state.disputes.items() if v.run_id not in hidden},
        reproductions={k: v for k, v in state.reproductions.items() if k not in hidden},
        reproduced={k: v for k, v in state.reproduced.items() if v.event.reproduces not in hidden},
        cycles={
            cycle_id: cycle
            if cycle_id in state.closed
            else msgspec.structs.replace(
                cycle, projects=[p for p in cycle.projects if p.pool != "secret"]
            )
            for cycle_id, cycle in state.cycles.items()
        },
    )
