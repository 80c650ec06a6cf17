"""A run that needs a GPU asks the engine for the host's GPUs (methodology section 6a, `docker run
--gpus all`); no other run does. This machine has no GPU, so the engine is seen to accept the
request when the container is made and to refuse it when it starts; on a GPU host it starts."""

from __future__ import annotations

import uuid

from adapters.docker_sandbox import DockerSandboxes, SandboxError, all_gpus, container_options
from adapters.sandbox_images import SANDBOX_IMAGE
from domain.events import SandboxLimits
from domain.runner.sandbox import SandboxSpec
from tests.adapters.test_docker_sandbox import files

GPU_REQUEST = {"Driver": "", "Count": -1, "DeviceIDs": [], "Capabilities": [["gpu"]], "Options": {}}


def spec(*, gpu: bool) -> SandboxSpec:
    run = f"t-{uuid.uuid4().hex[:8]}"
    return SandboxSpec(
        name=f"argusic-run-{run}-c1-{uuid.uuid4().hex[:6]}",
        image=SANDBOX_IMAGE,
        labels={"argusic.run": run, "argusic.deadline": "2030-01-01T00:00:00Z"},
        limits=SandboxLimits(
            memory_bytes=64 << 20, nano_cpus=10**8, pids=64, network="none", gpu=gpu
        ),
        pid1_seconds=30,
        environment={"TZ": "UTC"},
    )


def test_container_options_ask_for_every_gpu_of_a_gpu_run_only() -> None:
    assert container_options(spec(gpu=True))["device_requests"] == [GPU_REQUEST]
    assert container_options(spec(gpu=False))["device_requests"] is None
    assert all_gpus() == GPU_REQUEST
    assert all_gpus() is not all_gpus()  # a fresh request each time: nothing shared to mutate


def test_the_engine_is_asked_for_the_gpus(sandboxes: DockerSandboxes) -> None:
    """The container as the engine made it carries the request (HostConfig.DeviceRequests);
    an engine with no GPU refuses to start it, which the run sees as a SandboxError (our
    tooling: the run is aborted and asked for again, never scored)."""
    gpu, plain = spec(gpu=True), spec(gpu=False)
    try:
        refused: SandboxError | None = None
        try:
            sandboxes.create(gpu, files(**{"x": "x"}))
        except SandboxError as e:
            refused = e
        made = sandboxes.api.inspect_container(gpu.name)["HostConfig"]
        assert made["DeviceRequests"] == [GPU_REQUEST]
        if refused is not None:  # no GPU here: made, never started
            assert f"start {gpu.name}" in str(refused)
            assert not sandboxes.state(gpu.name).running
        sandboxes.create(plain, files(**{"x": "x"}))
        assert not sandboxes.api.inspect_container(plain.name)["HostConfig"]["DeviceRequests"]
    finally:
        for name in (gpu.name, plain.name):
            sandboxes.remove(name)
