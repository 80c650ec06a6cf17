"""A desktop run's raw video (methodology section 17: "para las aplicaciones gráficas un video en
bruto de la sesión"): while the agent runs, the host copies the virtual display's framebuffer out
of the sandbox through the engine (nothing runs in the sandbox to do it, so the agent cannot stop
or change it) a few times a second and encodes each copy into a file on the host."""

from __future__ import annotations

import threading

from api.services.runner_ports import Recorder, Runner
from domain.errors import ArgusicError
from domain.events import RunScheduled
from domain.runner.sandbox import SCREEN_FILE, virtual_display

LARGEST_SCREEN = 64 << 20
"""A framebuffer image larger than this is not a virtual display's (1280x800 at 32 bits is 4 MB)."""


class Filming:
    def __init__(self, runner: Runner, sandbox: str, video: Recorder) -> None:
        self.runner, self.sandbox, self.video = runner, sandbox, video
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._film, daemon=True, name=f"film {sandbox}")
        self.thread.start()

    def _film(self) -> None:
        period = 1 / self.runner.screen_fps
        while True:
            try:
                frame = self.runner.sandboxes.read_file(self.sandbox, SCREEN_FILE, LARGEST_SCREEN)
            except ArgusicError:  # the sandbox is going: the video ends with the session
                return
            if frame:
                self.video.write(frame)
            if self.stop.wait(period):
                return

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        self.video.close()


def start_filming(runner: Runner, run: RunScheduled, sandbox: str) -> Filming | None:
    """The run's raw video, for a run on a virtual display (None for any other)."""
    if runner.open_screen is None or virtual_display(run.project, run.edition) is None:
        return None
    return Filming(runner, sandbox, runner.open_screen(runner.video_path(run.run_id)))
