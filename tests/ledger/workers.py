"""Code run in child processes by the crash and concurrency tests."""

from __future__ import annotations

import os
import sys
import time
from datetime import date
from typing import Any

from eventsourcing.persistence import IntegrityError

from api.wiring import Settings, open_ledger
from domain.events import EditionDrafted
from ledger.ledger import NewEvent

BATCH = 2_000


def crash_child(point: str) -> None:
    """Append batches; once the third batch reaches `point`, say so and hang before its commit:
    `signing` (its checkpoint signed, nothing of it stored yet) or `sealed` (its events, Merkle
    nodes and signed checkpoint inserted)."""
    ledger = open_ledger(Settings.from_env())
    recorder = ledger.recorder
    real = {"signing": recorder.sealer.seal, "sealed": recorder._insert_batch}[point]
    calls = 0

    def then_hang(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        done = real(*args, **kwargs)
        calls += 1
        if calls == 3:
            print("INSERTED, NOT COMMITTED", flush=True)
            time.sleep(60)
        return done

    setattr(recorder.sealer if point == "signing" else recorder, real.__name__, then_hang)
    for b in range(3):
        ledger.append(
            [
                NewEvent(
                    EditionDrafted(version=f"{b}.{i}", drafted=date(2026, 9, 1), summary="crash"), 1
                )
                for i in range(BATCH)
            ]
        )


def writer(worker: int, rounds: int, shared_streams: int) -> tuple[int, int]:
    """Append to a stream of its own and to streams every worker shares; return what it wrote."""
    ledger = open_ledger(Settings.from_env())
    own = shared = 0
    for i in range(rounds):
        events = [
            NewEvent(
                EditionDrafted(
                    version=f"{worker}.{i}.{j}", drafted=date(2026, 9, 1), summary="own"
                ),
                1,
            )
            for j in range(5)
        ]
        ledger.append(events)
        own += len(events)
        target = f"shared.{i % shared_streams}"
        while True:  # optimistic concurrency: read the version, append the next, retry on conflict
            version = len(ledger.stream(f"edition:{target}")) + 1
            try:
                ledger.append(
                    [
                        NewEvent(
                            EditionDrafted(
                                version=target, drafted=date(2026, 9, 1), summary=f"by {worker}"
                            ),
                            version,
                        )
                    ]
                )
                shared += 1
                break
            except IntegrityError:
                continue
    ledger.recorder.close()
    return own, shared


def contender(worker: int, start_at: float) -> bool:
    """Append nine events of its own plus version 1 of one contested stream, all at once."""
    ledger = open_ledger(Settings.from_env())
    batch = [
        NewEvent(
            EditionDrafted(version=f"c{worker}.{j}", drafted=date(2026, 9, 1), summary="mine"), 1
        )
        for j in range(9)
    ]
    batch.insert(
        4,
        NewEvent(
            EditionDrafted(version="contested", drafted=date(2026, 9, 1), summary=f"by {worker}"), 1
        ),
    )
    time.sleep(max(0.0, start_at - time.time()))
    try:
        ledger.append(batch)
    except IntegrityError:
        return False
    finally:
        ledger.recorder.close()
    return True


if __name__ == "__main__":
    sys.exit(crash_child(sys.argv[2]) if sys.argv[1] == "crash" else os.EX_USAGE)
