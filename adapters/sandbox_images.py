"""The sandbox images, built locally with no registry (`argusic sandbox image`): Debian's
busybox-static copied into a `FROM scratch` image, from an in-memory build context.

`argusic/sandbox:1` is the bare machine; `argusic/baseline:1` adds the scripted baseline agent
(`/agent/run`); `argusic/desktop:1` is the baseline with a virtual display (methodology section 7
point 6, v1.1): Debian's Xvfb, xkbcomp and xdpyinfo with the libraries they link and the keyboard
data, copied from this machine. All carry the standard instructions' places (`/argusic`,
`/argusic/project`).
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
DESKTOP_IMAGE = "argusic/desktop:1"
DISPLAY_PROGRAMS = (Path("/usr/bin/Xvfb"), Path("/usr/bin/xkbcomp"), Path("/usr/bin/xdpyinfo"))
DISPLAY_DATA = (Path("/usr/share/X11/xkb"), Path("/usr/lib/xorg/protocol.txt"))
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


def _linked_libraries(program: Path) -> list[Path]:
    """The shared libraries `program` loads, the dynamic loader included (as ldd lists them)."""
    listed = subprocess.run(
        ["ldd", str(program)], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    return [Path(word) for word in listed.split() if word.startswith("/")]


def _display_files() -> dict[str, Path]:
    """Image path -> host file for the virtual display: programs, libraries, data."""
    missing = [str(p) for p in (*DISPLAY_PROGRAMS, *DISPLAY_DATA) if not p.exists()]
    if missing:
        raise SetupError(f"no {', '.join(missing)}: install Debian's xvfb and x11-utils")
    files: dict[str, Path] = {}
    for program in DISPLAY_PROGRAMS:
        for path in (program, *_linked_libraries(program)):
            files[str(path)] = path.resolve()
    for data in DISPLAY_DATA:
        found = sorted(data.rglob("*")) if data.is_dir() else [data]
        files.update({str(path): path for path in found if path.is_file()})
    return files


def _add_tree(tar: tarfile.TarFile, files: dict[str, Path]) -> None:
    folders = sorted({str(parent) for name in files for parent in Path(name).parents} - {"/"})
    for folder in folders:
        _add(tar, f"rootfs{folder}", mode=0o755)
    for name, source in sorted(files.items()):
        _add(tar, f"rootfs{name}", data=source.read_bytes(), mode=source.stat().st_mode & 0o755)


def build_context(agent: bytes | None, *, display: bool = False) -> bytes:
    """The build context: the Dockerfile and a root filesystem of busybox and its applets (and,
    for a desktop image, the virtual display)."""
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
        if display:
            _add_tree(tar, _display_files())
    return buffer.getvalue()


def build_images(sandboxes: DockerSandboxes) -> list[BuiltImage]:
    """Build (or rebuild, unchanged when nothing changed) the sandbox images."""
    agent = (ASSETS / "baseline-agent.sh").read_bytes()
    built = []
    for tag, script, display in (
        (SANDBOX_IMAGE, None, False),
        (BASELINE_IMAGE, agent, False),
        (DESKTOP_IMAGE, agent, True),
    ):
        context = io.BytesIO(build_context(script, display=display))

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
