"""A large file through the S3 store in a process of its own, which reports its peak memory:
`python -m tests.adapters.s3_memory ENDPOINT BUCKET PREFIX MEGABYTES` (credentials from the
environment), printing JSON."""

from __future__ import annotations

import hashlib
import json
import random
import resource
import sys
from collections.abc import Iterator

from adapters.s3_artifacts import S3ArtifactStore, connect

MB = 1 << 20


def generated(megabytes: int) -> Iterator[bytes]:
    """`megabytes` of random bytes, one megabyte at a time, the same on every call."""
    draw = random.Random(31)
    for _ in range(megabytes):
        yield draw.randbytes(MB)


def expected_sha256(megabytes: int) -> str:
    digest = hashlib.sha256()
    for chunk in generated(megabytes):
        digest.update(chunk)
    return digest.hexdigest()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(endpoint: str, bucket: str, prefix: str, megabytes: int) -> dict[str, object]:
    store = S3ArtifactStore(connect(endpoint), bucket, prefix)
    warm = store.put_stream([b"warm"])  # the client's own memory before the measured work
    b"".join(store.read(warm.sha256))
    base = peak_mb()
    stored = store.put_stream(generated(megabytes))
    read = hashlib.sha256()
    for chunk in store.read(stored.sha256):
        read.update(chunk)
    return {
        "stored": stored.sha256,
        "read": read.hexdigest(),
        "base_mb": base,
        "peak_mb": peak_mb(),
    }


if __name__ == "__main__":
    endpoint, bucket, prefix, megabytes = sys.argv[1:]
    print(json.dumps(main(endpoint, bucket, prefix, int(megabytes))))
