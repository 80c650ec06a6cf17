"""Evidence files, content-addressed on S3-compatible object storage
(`ARGUSIC_ARTIFACTS_URL=s3://bucket/prefix`, the gateway at `ARGUSIC_S3_ENDPOINT`).

The file store's contract (`adapters/artifacts.py`) over a bucket: an object is stored under its
SHA-256 (`prefix/sha256/ab/abcd…`), once, and never changed. Its key is known only once every
byte has been hashed, so the bytes are hashed into a spooled temporary file (memory up to
`SPOOLED` bytes, then the local disk) and only then uploaded, straight to their content
address, in parts of `PART` bytes that the gateway turns into one object when the last part is
in: a gateway that dies mid-write leaves nothing under a content address (docs/decisions.md).
A second write of stored bytes uploads nothing; the object stored under that SHA-256 is read
back and must hash to it, or the write is an `ArtifactCorrupt`. A read hashes the object into a
spooled temporary file and gives out its bytes only when they hash to their address.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from tempfile import SpooledTemporaryFile
from typing import IO, TYPE_CHECKING

import boto3
import boto3.exceptions
import botocore.config
import botocore.exceptions
from boto3.s3.transfer import TransferConfig

from adapters.artifacts import CHUNK, ContentAddressed, HashingWriter
from domain.errors import IntegrityFailure, NotFound, StoreUnavailable
from domain.events import Fingerprint

if TYPE_CHECKING:
    from types_boto3_s3.client import S3Client

SPOOLED = 8 << 20
"""Bytes of a file being written or read held in memory before it goes to a temporary file."""

PART = 8 << 20
TRANSFER = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART, max_concurrency=2)
"""An upload in parts of 8 MB, two at a time, at most two read ahead: a few parts in memory,
whatever the size."""
TRANSFER.max_in_memory_upload_chunks = 2  # the read-ahead (s3transfer's default: 10)


class S3Unavailable(StoreUnavailable):
    """The S3 gateway did not answer, or refused: what was being stored (or read) was not."""


class ArtifactCorrupt(IntegrityFailure):
    """The object under a SHA-256 does not hash to it: its bytes are never given out."""


class ArtifactMissing(NotFound, FileNotFoundError):
    """No object is stored under a SHA-256."""


def connect(endpoint: str | None) -> S3Client:
    """A client of the S3 gateway at `endpoint` (AWS's own when None), with the credentials of
    the usual chain (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`); it connects when first used."""
    session = boto3.session.Session()
    config = botocore.config.Config(
        connect_timeout=5,
        read_timeout=60,
        retries={"mode": "standard", "max_attempts": 3},
        # S3-compatible gateways answer path-style requests; AWS answers both
        s3={"addressing_style": "path"},
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    return session.client(
        "s3",
        endpoint_url=endpoint,
        region_name=session.region_name or "us-east-1",
        config=config,
    )


class S3ArtifactStore(ContentAddressed):
    def __init__(self, client: S3Client, bucket: str, prefix: str = "") -> None:
        self.client, self.bucket = client, bucket
        self.prefix = prefix.strip("/")

    def __repr__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"

    def key(self, sha256: str) -> str:
        name = f"sha256/{sha256[:2]}/{sha256}"
        return f"{self.prefix}/{name}" if self.prefix else name

    @contextmanager
    def storing(self) -> Iterator[HashingWriter]:
        """A writer into a spooled temporary file, uploaded under its SHA-256 when the block
        ends well (unless stored already), dropped in any case."""
        with SpooledTemporaryFile(max_size=SPOOLED) as spool:
            writer = HashingWriter(spool)
            yield writer
            fingerprint = writer.seal()
            spool.seek(0)
            self._place(spool, fingerprint)

    def read(self, sha256: str) -> Iterator[bytes]:
        """A stored file, in chunks, once all of it has been read and hashes to `sha256`: the
        call raises (missing, corrupt, the gateway gone) before any byte is given out, so a
        server answers with the error rather than cut bytes."""
        with ExitStack() as closing:
            spool = closing.enter_context(SpooledTemporaryFile(max_size=SPOOLED))
            self._check(sha256, spool.write)
            spool.seek(0)
            return _drained(spool, closing.pop_all())  # closed once drained, not now

    def _place(self, spool: IO[bytes], fingerprint: Fingerprint) -> None:
        key = self.key(fingerprint.sha256)
        with self._answering(f"storing {fingerprint.sha256}", STORED_NOTHING):
            try:
                stored = self.client.head_object(Bucket=self.bucket, Key=key)
            except botocore.exceptions.ClientError as e:
                if _code(e) not in {"404", "NoSuchKey", "NotFound"}:
                    raise
            else:  # written once: a second write checks what is there and stores nothing
                if stored["ContentLength"] != fingerprint.bytes:
                    raise ArtifactCorrupt(
                        f"s3://{self.bucket}/{key} holds {stored['ContentLength']} bytes, not the "
                        f"{fingerprint.bytes} that hash to its SHA-256: the store was changed"
                    )
                self._check(fingerprint.sha256, lambda _: None)
                return
            self.client.upload_fileobj(spool, self.bucket, key, Config=TRANSFER)

    def _check(self, sha256: str, sink: Callable[[bytes], object]) -> None:
        """Every byte of the object under `sha256` into `sink`; `ArtifactCorrupt` unless they
        hash to it."""
        key = self.key(sha256)
        digest = hashlib.sha256()
        with self._answering(f"reading {sha256}", "nothing of it was given out"):
            try:
                body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"]
            except botocore.exceptions.ClientError as e:
                if _code(e) in {"404", "NoSuchKey", "NotFound"}:
                    raise ArtifactMissing(f"no object at s3://{self.bucket}/{key}") from e
                raise
            for chunk in body.iter_chunks(CHUNK):
                digest.update(chunk)
                sink(chunk)
        if digest.hexdigest() != sha256:
            raise ArtifactCorrupt(
                f"s3://{self.bucket}/{key}: its bytes hash to {digest.hexdigest()}, not to its "
                "recorded SHA-256; they are not given out"
            )

    @contextmanager
    def _answering(self, doing: str, outcome: str) -> Iterator[None]:
        """The client's errors as ours: the gateway gone or refusing is `S3Unavailable`."""
        try:
            yield
        except (botocore.exceptions.BotoCoreError, boto3.exceptions.S3UploadFailedError) as e:
            raise self._unavailable(doing, str(e), outcome) from e
        except botocore.exceptions.ClientError as e:
            why = f"{_code(e)}: {e.response.get('Error', {}).get('Message')}"
            raise self._unavailable(doing, why, outcome) from e

    def _unavailable(self, doing: str, why: str, outcome: str) -> S3Unavailable:
        return S3Unavailable(
            f"the S3 store {self!r} failed while {doing} ({why}): {outcome}; run again once "
            "the gateway answers"
        )


def _drained(spool: IO[bytes], closing: ExitStack) -> Iterator[bytes]:
    with closing:
        yield from iter(lambda: spool.read(CHUNK), b"")


STORED_NOTHING = "nothing was stored under a content address"


def _code(error: botocore.exceptions.ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))
