"""Python's cycle collector, held off while work allocates millions of objects that make no
cycles (a fold, a verify): each time it ran it walked every object still alive again."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the block: reference counting still frees garbage, and the
    collector runs again after (a block inside another leaves it to the outer one)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
