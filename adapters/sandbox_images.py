"""The sandbox images, built locally with no registry (`argusic sandbox image`): Debian's
busybox-static copied into a `FROM scratch` image, from an in-memory build context.

`argusic/sandbox:1` is the bare machine; `argusic/baseline:1` adds the scripted baseline agent
(`/agent/run`). Both carry the standard instructions' places (`/argusic`, `/argusic/project`).
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors

from adapters.docker_sandbox import DockerSandboxes, SandboxError, _bounded
from domain.errors import SetupError

BUSYBOX = Path("/bin/busybox")
ASSETS = Path(__file__).with_name("sandbox_image")
INSTRUCTIONS = ASSETS / "instructions.md"
SANDBOX_IMAGE = "argusic/sandbox:1"
BASELINE_IMAGE = "argusic/baseline:1"
DOCKERFILE = b"""FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin TZ=UTC LANG=C.UTF-8 HOME=/root
WORKDIR /argusic/project
"""


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    digest: str


def _static_busybox() -> bytes:
    if not BUSYBOX.is_file():
        raise SetupError(f"no {BUSYBOX}: install Debian's busybox-static")
    data = BUSYBOX.read_bytes()
    if b"/lib64/ld-linux" in data[:4096] or b"/lib/ld-" in data[:4096]:
        raise SetupError(f"{BUSYBOX} is dynamically linked: install Debian's busybox-static")
    return data


def _applets() -> list[str]:
    listed = subprocess.run(
        [str(BUSYBOX), "--list-full"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    return sorted({a for a in listed if a != "bin/busybox"})


def _add(
    tar: tarfile.TarFile,
    name: str,
    *,
    data: bytes | None = None,
    mode: int = 0o644,
    link: str | None = None,
) -> None:
    info = tarfile.TarInfo(name)
    info.mtime = 0
    if link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
    elif data is None:
        info.type, info.mode = tarfile.DIRTYPE, mode
    else:
        info.size, info.mode = len(data), mode
    tar.addfile(info, None if data is None else io.BytesIO(data))


def build_context(agent: bytes | None) -> bytes:
    """The build context: the Dockerfile and a root filesystem of busybox and its applets."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        _add(tar, "Dockerfile", data=DOCKERFILE)
        for folder in (
            "bin",
            "sbin",
            "usr",
            "usr/bin",
            "usr/sbin",
            "etc",
            "root",
            "argusic",
            "argusic/project",
        ):
            _add(tar, f"rootfs/{folder}", mode=0o755)
        _add(tar, "rootfs/tmp", mode=0o1777)
        _add(tar, "rootfs/bin/busybox", data=_static_busybox(), mode=0o755)
        for applet in _applets():
            _add(tar, f"rootfs/{applet}", link="/bin/busybox")
        _add(tar, "rootfs/etc/passwd", data=b"root:x:0:0:root:/root:/bin/sh\n")
        _add(tar, "rootfs/etc/group", data=b"root:x:0:\n")
        if agent is not None:
            _add(tar, "rootfs/agent", mode=0o755)
            _add(tar, "rootfs/agent/run", data=agent, mode=0o755)
    return buffer.getvalue()


def build_images(sandboxes: DockerSandboxes) -> list[BuiltImage]:
    """Build (or rebuild, unchanged when nothing changed) the sandbox images."""
    agent = (ASSETS / "baseline-agent.sh").read_bytes()
    built = []
    for tag, script in ((SANDBOX_IMAGE, None), (BASELINE_IMAGE, agent)):
        context = io.BytesIO(build_context(script))

        def build(context: io.BytesIO = context, tag: str = tag) -> str:
            image, _ = sandboxes.client.images.build(
                fileobj=context,
                custom_context=True,
                tag=tag,
                rm=True,
                pull=False,
                network_mode="none",
                labels={"org.argusic.image": tag},
            )
            return str(image.id)

        try:
            built.append(BuiltImage(tag=tag, digest=_bounded(f"build {tag}", build)))
        except docker.errors.BuildError as e:
            raise SandboxError(f"build {tag}: {e.msg}") from None
    return built
