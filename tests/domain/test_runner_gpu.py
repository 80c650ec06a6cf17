"""Runs that need a GPU (methodology section 6a: "necesita un worker con GPU, así que su costo
por intento es mayor y su presupuesto se decide por separado"): claimed only by a GPU worker,
given the host's GPUs, and keyed with their own spending limit."""

from __future__ import annotations

from datetime import timedelta

import msgspec

from domain.events import Project, RunScheduled
from domain.runner.budgets import key_limit, needs_gpu
from domain.runner.config import KeyPolicy, SandboxPolicy
from domain.runner.lifecycle import GPU_WAIT, claimable, fold, initial, waiting_for
from domain.runner.sandbox import SandboxSpec, sandbox_limits, sandbox_spec
from tests import runner_events as ev

KEYS = KeyPolicy(limit_usd=3, gpu_limit_usd=7)


def gpu_run() -> RunScheduled:
    run = ev.scheduled()
    project = Project(
        id="hf/tiny-model", source_type="huggingface_model", pool="public", needs_gpu=True
    )
    return msgspec.structs.replace(run, project=project, tier="gpu")


def spec_of(run: RunScheduled) -> SandboxSpec:
    return sandbox_spec(
        run,
        1,
        ev.DEADLINE,
        ledger="L",
        nonce="n",
        policy=SandboxPolicy(),
        pid1_seconds=60,
    )


def test_needs_gpu() -> None:
    assert needs_gpu(gpu_run())
    assert not needs_gpu(ev.scheduled())


def test_key_limit() -> None:
    """A GPU run's key gets the limit configured apart; every other run the per-run one."""
    assert key_limit(gpu_run(), KEYS) == 7
    assert key_limit(ev.scheduled(), KEYS) == 3


def test_claimable_by_a_gpu_worker_only() -> None:
    gpu, plain = initial(gpu_run()), initial(ev.scheduled())
    assert not claimable(gpu, ev.T0)
    assert claimable(gpu, ev.T0, gpu=True)
    assert claimable(plain, ev.T0)
    assert claimable(plain, ev.T0, gpu=True)  # a GPU worker takes other runs too


def test_claimable_by_a_gpu_worker_still_waits_for_its_retry() -> None:
    failed = [ev.claimed(), ev.key_requested(), ev.key_failed()]
    state = fold([gpu_run(), *failed])
    retry_after = ev.key_failed().retry_after
    assert not claimable(state, retry_after - timedelta(seconds=1), gpu=True)
    assert claimable(state, retry_after, gpu=True)
    assert not claimable(state, retry_after)


def test_waiting_for() -> None:
    assert waiting_for(initial(gpu_run()), ev.T0) == GPU_WAIT
    assert "--gpu" in GPU_WAIT
    assert waiting_for(initial(ev.scheduled()), ev.T0) is None
    failed = fold([ev.scheduled(), ev.claimed(), ev.key_requested(), ev.key_failed()])
    retry_after = ev.key_failed().retry_after
    assert waiting_for(failed, retry_after - timedelta(seconds=1)) == (
        f"its retry time, {retry_after.isoformat().replace('+00:00', 'Z')}"
    )
    assert waiting_for(failed, retry_after) is None
    assert waiting_for(fold([ev.scheduled(), ev.claimed()]), ev.T0) is None  # not scheduled


def test_sandbox_limits_ask_for_the_gpus_of_a_gpu_run_only() -> None:
    assert sandbox_limits(SandboxPolicy(), gpu=True).gpu
    assert not sandbox_limits(SandboxPolicy()).gpu
    assert spec_of(gpu_run()).limits.gpu
    assert not spec_of(ev.scheduled()).limits.gpu
