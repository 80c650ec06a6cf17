"""Calls made at the same moment from several threads, as several schedulers or workers would."""

from __future__ import annotations

import threading
from collections.abc import Callable


def at_once(call: Callable[[], object], times: int = 4) -> list[BaseException]:
    """`call` from `times` threads released together; what any of them raised."""
    start, failures = threading.Barrier(times), []

    def each() -> None:
        start.wait()
        try:
            call()
        except BaseException as e:
            failures.append(e)

    threads = [threading.Thread(target=each) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures
