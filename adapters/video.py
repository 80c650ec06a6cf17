"""Renders of a served recording (methodology section 17, the presentation layer): the events
replayed by a terminal emulator (`pyte`), each frame drawn with Pillow in Debian's DejaVu Sans
Mono (fonts-dejavu-core), encoded by Debian's `ffmpeg` with every flag that would make two
encodings of the same frames differ pinned (bit-exact, one thread, no metadata but ours).
Nothing is downloaded: `scripts/ensure-media.sh` installs ffmpeg and the font."""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Literal

import pyte
from PIL import Image, ImageDraw, ImageFont

from domain.errors import SetupError
from domain.presentation import Frame

Format = Literal["gif", "mp4"]
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
SIZE = 12
LINE = SIZE + 3
BACKGROUND, FOREGROUND, BAND, BAND_TEXT = (18, 18, 18), (220, 220, 220), (40, 48, 64), (255, 214, 0)
FPS = 5
"""Frames a second: a terminal changes by lines, five a second follow it."""


@cache
def _font() -> ImageFont.FreeTypeFont:
    if not FONT.is_file():
        raise SetupError(f"no {FONT}: install Debian's fonts-dejavu-core (scripts/ensure-media.sh)")
    return ImageFont.truetype(str(FONT), SIZE)


def _ffmpeg() -> str:
    found = shutil.which("ffmpeg")
    if found is None:
        raise SetupError("no ffmpeg: install Debian's ffmpeg (scripts/ensure-media.sh)")
    return found


def tool_versions() -> dict[str, str]:
    """The versions of what made a render's bytes (recorded with it)."""
    first = subprocess.run(
        [_ffmpeg(), "-version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.splitlines()[0]
    return {
        "ffmpeg": first,
        "pyte": version("pyte"),
        "pillow": version("pillow"),
        "font": FONT.name,
    }


class Canvas:
    """Frames of a terminal of `columns` x `rows`, under a band of `heading` lines (the run's
    address and the recording's SHA-256, on every frame) and over a caption line."""

    def __init__(self, columns: int, rows: int, heading: Sequence[str]) -> None:
        self.columns, self.rows, self.heading = columns, rows, list(heading)
        advance = _font().getlength("M")
        width = max(int(advance * columns), int(advance * max(map(len, heading), default=0)))
        self.width = width + 16 + (width % 2)
        self.height = LINE * (rows + len(heading) + 1) + 16
        self.height += self.height % 2  # even sides, as yuv420p needs

    def draw(self, screen: Sequence[str], caption: str | None) -> bytes:
        image = Image.new("RGB", (self.width, self.height), BACKGROUND)
        pen = ImageDraw.Draw(image)
        band = LINE * len(self.heading) + 8
        pen.rectangle((0, 0, self.width, band), fill=BAND)
        for i, line in enumerate(self.heading):
            pen.text((8, 4 + i * LINE), line, font=_font(), fill=BAND_TEXT)
        for i, line in enumerate(screen):
            pen.text((8, band + 4 + i * LINE), line, font=_font(), fill=FOREGROUND)
        if caption:
            top = band + 8 + self.rows * LINE
            pen.rectangle((0, top - 2, self.width, self.height), fill=BAND)
            pen.text((8, top), caption[: self.columns], font=_font(), fill=BAND_TEXT)
        return image.tobytes()


def screens(
    columns: int, rows: int, texts: Sequence[str], frames: Sequence[Frame]
) -> Iterator[list[str]]:
    """What the terminal shows at each frame, the events fed in the recording's order."""
    screen = pyte.Screen(columns, rows)
    stream = pyte.Stream(screen)
    fed = 0
    for frame in frames:
        for text in texts[fed : frame.fed]:
            stream.feed(text)
        fed = max(fed, frame.fed)
        yield [line.rstrip() for line in screen.display]


def _encoding(kind: Format, comment: str) -> list[str]:
    pinned = ["-threads", "1", "-filter_threads", "1", "-fflags", "+bitexact"]
    pinned += ["-flags:v", "+bitexact", "-map_metadata", "-1"]
    if kind == "gif":
        palette = "split[a][b];[a]palettegen=max_colors=32[p];[b][p]paletteuse=dither=none"
        return [*pinned, "-vf", palette, "-loop", "0", "-f", "gif"]
    x264 = ["-c:v", "libx264", "-preset", "medium", "-crf", "26", "-pix_fmt", "yuv420p"]
    return [*pinned, *x264, "-metadata", f"comment={comment}", "-f", "mp4"]


def encode(canvas: Canvas, frames: Iterator[bytes], kind: Format, comment: str) -> bytes:
    """The frames encoded as `kind`; the file's metadata carries `comment` (a GIF's in a comment
    extension, an MP4's in its `comment` tag)."""
    size = f"{canvas.width}x{canvas.height}"
    with tempfile.TemporaryDirectory(prefix="argusic-render-") as folder:
        out = Path(folder) / f"render.{kind}"
        command = [_ffmpeg(), "-v", "error", "-nostdin", "-f", "rawvideo", "-pix_fmt", "rgb24"]
        command += ["-s", size, "-r", str(FPS), "-i", "-", *_encoding(kind, comment), str(out)]
        with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE) as ffmpeg:
            assert ffmpeg.stdin is not None
            assert ffmpeg.stderr is not None
            try:
                for frame in frames:
                    ffmpeg.stdin.write(frame)
            finally:
                ffmpeg.stdin.close()
            error = ffmpeg.stderr.read().decode(errors="replace")
        if ffmpeg.returncode:
            raise SetupError(f"ffmpeg failed ({ffmpeg.returncode}): {error.strip()[:500]}")
        data = out.read_bytes()
    return with_gif_comment(data, comment) if kind == "gif" else data


def with_gif_comment(gif: bytes, comment: str) -> bytes:
    """A GIF with a comment extension (GIF89a, section 24) after its global colour table."""
    flags = gif[10]
    table = 3 * (2 ** ((flags & 7) + 1)) if flags & 0x80 else 0
    at = 13 + table
    text = comment.encode()
    pieces = (text[i : i + 255] for i in range(0, len(text), 255))
    blocks = b"".join(bytes([len(piece)]) + piece for piece in pieces)
    return gif[:at] + b"\x21\xfe" + blocks + b"\x00" + gif[at:]


class TerminalRenderer:
    """`api.services.ports.Renderer`: a recording's output replayed, drawn and encoded."""

    fps = FPS

    def versions(self) -> dict[str, str]:
        return tool_versions()

    def render(
        self,
        size: tuple[int, int],
        texts: Sequence[str],
        frames: Sequence[Frame],
        heading: Sequence[str],
        kind: str,
    ) -> bytes:
        """The recording's output `texts` replayed frame by frame on a terminal of `size`
        (columns, rows), `heading` above every frame; `kind` is gif or mp4."""
        if kind not in ("gif", "mp4"):
            raise SetupError(f"no {kind!r} renders: gif or mp4")
        columns, rows = size
        canvas = Canvas(columns, rows, heading)
        drawn = (
            canvas.draw(screen, frame.caption)
            for screen, frame in zip(screens(columns, rows, texts, frames), frames, strict=True)
        )
        return encode(canvas, drawn, "gif" if kind == "gif" else "mp4", " | ".join(heading))


SCREEN_FPS = 2
"""Frames a second of a desktop run's raw video."""


def xwd_frame(dump: bytes) -> tuple[int, int, bytes]:
    """Width, height and pixels (`bgr0`) of an X window dump as Xvfb's `-fbdir` keeps it: a
    ZPixmap of 32 bits a pixel, least significant byte first (XWDFile.h, version 7)."""
    fields = struct.unpack(">25I", dump[:100])
    header, version, pixmap_format, _, width, height = fields[:6]
    byte_order, bits_per_pixel, bytes_per_line, colours = (
        fields[7],
        fields[11],
        fields[12],
        fields[19],
    )
    if (version, pixmap_format, byte_order, bits_per_pixel) != (7, 2, 0, 32):
        raise SetupError("the virtual display's framebuffer is not a 32-bit LSB-first ZPixmap")
    start = header + 12 * colours
    pixels = dump[start : start + height * bytes_per_line]
    rows = (pixels[i * bytes_per_line : i * bytes_per_line + 4 * width] for i in range(height))
    return width, height, b"".join(rows)


class ScreenVideo:
    """A desktop run's raw video (section 17): each framebuffer image of the virtual display
    (X window dumps, as Xvfb's `-fbdir` keeps them) encoded as it arrives, losslessly (FFV1 in
    Matroska), into a file on the host, out of the agent's reach."""

    fps = SCREEN_FPS

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = path
        self._ffmpeg: subprocess.Popen[bytes] | None = None
        self._size: tuple[int, int] | None = None
        self.closed = False

    def write(self, chunk: bytes) -> None:
        """One framebuffer image (one of another size than the first is left out)."""
        width, height, pixels = xwd_frame(chunk)
        if self._ffmpeg is None:
            self._size = (width, height)
            command = [_ffmpeg(), "-v", "error", "-nostdin", "-f", "rawvideo", "-pix_fmt", "bgr0"]
            command += ["-s", f"{width}x{height}", "-framerate", str(SCREEN_FPS), "-i", "-"]
            command += ["-c:v", "ffv1", "-y", str(self.path)]
            self._ffmpeg = subprocess.Popen(command, stdin=subprocess.PIPE)
        if (width, height) == self._size:
            assert self._ffmpeg.stdin is not None
            self._ffmpeg.stdin.write(pixels)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._ffmpeg is not None:
            assert self._ffmpeg.stdin is not None
            self._ffmpeg.stdin.close()
            self._ffmpeg.wait(timeout=120)
