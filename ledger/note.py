"""C2SP signed notes (c2sp.org/signed-note) with Ed25519, carrying C2SP checkpoints
(c2sp.org/tlog-checkpoint).

Standard library and `cryptography` only, so the offline verifier can carry this module;
where PyNaCl is installed too (it is, beside the ledger), libsodium checks the signatures.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

try:  # libsodium checks an Ed25519 signature in half OpenSSL's time: a verify checks thousands
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey
except ImportError:  # the offline verifier may carry `cryptography` alone
    VerifyKey = None  # type: ignore[assignment,misc]

ED25519 = b"\x01"
"""signed-note "Signature types": 0x01 is Ed25519."""

SIGNATURE_PREFIX = "\u2014 "
"""signed-note "Format": a signature line starts with an em dash and a space."""


class NoteError(ValueError):
    """A note, key or checkpoint is malformed or its signature does not verify."""


def key_id(name: str, public_key: bytes) -> bytes:
    """signed-note "Signatures": SHA-256(key name || 0x0A || 0x01 || public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + public_key).digest()[:4]


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"key name {name!r} must be non-empty, without spaces or '+'")


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as e:
        raise NoteError(f"{what} is not standard base64") from e


@dataclass(frozen=True)
class Verifier:
    """A verifier key: `<name>+<hex key id>+<base64(0x01 || 32-byte Ed25519 key)>`."""

    name: str
    public_key: bytes

    @cached_property
    def key_id(self) -> bytes:
        return key_id(self.name, self.public_key)

    @cached_property
    def _key(self) -> Ed25519PublicKey:
        return Ed25519PublicKey.from_public_bytes(self.public_key)

    def __str__(self) -> str:
        encoded = base64.b64encode(ED25519 + self.public_key).decode()
        return f"{self.name}+{self.key_id.hex()}+{encoded}"

    @classmethod
    def parse(cls, text: str) -> Verifier:
        name, kid, key = _split_key(text, "verifier key")
        verifier = cls(name, key)
        if verifier.key_id.hex() != kid:
            raise NoteError(f"verifier key id {kid} does not match its name and key")
        return verifier

    @cached_property
    def _sodium_key(self) -> VerifyKey:
        return VerifyKey(self.public_key)

    def verify(self, message: bytes, signature: bytes) -> bool:
        """RFC 8032 5.1.7, by libsodium where it is installed, else by OpenSSL."""
        if VerifyKey is None:
            return self.verify_with_openssl(message, signature)
        try:
            self._sodium_key.verify(message, signature)
        except (BadSignatureError, ValueError):  # ValueError: not 64 bytes
            return False
        return True

    def verify_with_openssl(self, message: bytes, signature: bytes) -> bool:
        try:
            self._key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    """A signer key: `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 || 32-byte seed)>`."""

    name: str
    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> Signer:
        _check_name(name)
        return cls(name, Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> Signer:
        prefix = "PRIVATE+KEY+"
        if not text.startswith(prefix):
            raise NoteError("signer key must start with PRIVATE+KEY+")
        name, kid, seed = _split_key(text[len(prefix) :], "signer key")
        signer = cls(name, Ed25519PrivateKey.from_private_bytes(seed))
        if signer.verifier.key_id.hex() != kid:
            raise NoteError(f"signer key id {kid} does not match its name and key")
        return signer

    def __str__(self) -> str:
        seed = self.private_key.private_bytes_raw()
        encoded = base64.b64encode(ED25519 + seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.key_id.hex()}+{encoded}"

    @cached_property
    def verifier(self) -> Verifier:
        public = self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(self.name, public)

    def sign(self, text: str) -> str:
        """signed-note "Format": the text, a blank line, then this key's signature line."""
        _check_text(text)
        signature = self.verifier.key_id + self.private_key.sign(text.encode())
        return f"{text}\n{SIGNATURE_PREFIX}{self.name} {base64.b64encode(signature).decode()}\n"


def _split_key(text: str, what: str) -> tuple[str, str, bytes]:
    parts = text.split("+", 2)
    if len(parts) != 3:
        raise NoteError(f"{what} must have the form name+keyid+key")
    name, kid, encoded = parts
    _check_name(name)
    if len(kid) != 8 or any(c not in "0123456789abcdef" for c in kid):
        raise NoteError(f"{what} id must be 8 lowercase hex digits")
    key = _b64decode(encoded, what)
    if len(key) != 33 or key[:1] != ED25519:
        raise NoteError(f"{what} must be an Ed25519 key (type 0x01, 32 bytes)")
    return name, kid, key[1:]


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")
"""ASCII control characters other than newline (one regex scan: a verify checks a note per
checkpoint)."""


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("note text must end with a newline")
    if _CONTROL.search(text):
        raise NoteError("note text must not hold control characters other than newline")


def open_note(note: str, verifier: Verifier) -> str:
    """Return the text of `note` once `verifier`'s signature on it checks out.

    Signatures from other keys are ignored, as signed-note requires; a signature from this
    key that fails to verify rejects the note, and so does the absence of any.
    """
    text, sep, signatures = note.rpartition("\n\n")
    if not sep or not signatures.endswith("\n"):
        raise NoteError("note must be text, a blank line, then signature lines")
    text += "\n"
    _check_text(text)
    verified = False
    for line in signatures[:-1].split("\n"):
        if not line.startswith(SIGNATURE_PREFIX):
            raise NoteError(f"malformed signature line {line!r}")
        name, _, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
        signature = _b64decode(encoded, "signature")
        if name != verifier.name or signature[:4] != verifier.key_id:
            continue
        if not verifier.verify(text.encode(), signature[4:]):
            raise NoteError(f"signature by {name} does not verify")
        verified = True
    if not verified:
        raise NoteError(f"note carries no signature by {verifier.name}")
    return text


@dataclass(frozen=True)
class CheckpointBody:
    """tlog-checkpoint: origin, tree size and root hash; extension lines are not used here."""

    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @classmethod
    def parse(cls, text: str) -> CheckpointBody:
        lines = text.split("\n")
        if len(lines) < 4 or lines[-1] != "":
            raise NoteError("checkpoint must hold origin, size and root hash lines")
        origin, size, root = lines[0], lines[1], _b64decode(lines[2], "checkpoint root")
        if not origin or not size.isdigit() or (size != "0" and size.startswith("0")):
            raise NoteError("checkpoint origin is empty or its size is not a decimal number")
        if len(root) != 32:
            raise NoteError("checkpoint root hash must be 32 bytes")
        return cls(origin, int(size), root)


def open_checkpoint(note: str, verifier: Verifier) -> CheckpointBody:
    """Verify a signed checkpoint note and parse its body."""
    return CheckpointBody.parse(open_note(note, verifier))
