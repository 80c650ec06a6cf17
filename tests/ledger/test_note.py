"""Signed notes and checkpoints: the Go reference vectors, and every mutation rejected."""

from __future__ import annotations

import pytest

from ledger.note import CheckpointBody, NoteError, Signer, Verifier, open_checkpoint, open_note

# golang.org/x/mod/sumdb/note, example_test.go
SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
SIGNATURE = (
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM="
)
NOTE = f"{TEXT}\n\u2014 PeterNeumann {SIGNATURE}\n"


def test_signing_matches_the_reference_byte_for_byte() -> None:
    signer = Signer.parse(SKEY)
    assert str(signer.verifier) == VKEY
    assert str(signer) == SKEY
    assert signer.sign(TEXT) == NOTE


def test_the_reference_note_opens() -> None:
    assert open_note(NOTE, Verifier.parse(VKEY)) == TEXT


def test_every_byte_flip_of_the_note_is_rejected() -> None:
    verifier = Verifier.parse(VKEY)
    encoded = NOTE.encode()
    for i in range(len(encoded)):
        mutated = bytearray(encoded)
        mutated[i] ^= 0x01
        try:
            text = bytes(mutated).decode()
        except UnicodeDecodeError:
            continue  # not a note at all
        with pytest.raises(NoteError):
            open_note(text, verifier)


def test_a_note_signed_by_another_key_is_rejected() -> None:
    other = Signer.generate("PeterNeumann")
    with pytest.raises(NoteError, match="no signature by PeterNeumann"):
        open_note(other.sign(TEXT), Verifier.parse(VKEY))


@pytest.mark.parametrize(
    "key",
    [
        VKEY.replace("c74f20a3", "c74f20a4"),  # key id does not match
        VKEY.replace("PeterNeumann", "Peter Neumann"),  # space in the name
        VKEY[:-4],  # truncated key
        "PeterNeumann+c74f20a3",  # no key
        VKEY.replace("+ARpc", "+AhQc"),  # wrong algorithm byte
    ],
)
def test_mangled_verifier_keys_are_refused(key: str) -> None:
    with pytest.raises(NoteError):
        Verifier.parse(key)


def test_checkpoint_round_trip_and_forgery() -> None:
    signer = Signer.generate("argusic.test/log")
    body = CheckpointBody("argusic.test/log", 42, bytes(range(32)))
    note = signer.sign(body.text())
    assert open_checkpoint(note, signer.verifier) == body
    forged = note.replace("\n42\n", "\n43\n")
    with pytest.raises(NoteError):
        open_checkpoint(forged, signer.verifier)


@pytest.mark.parametrize(
    "text",
    [
        "origin\n12\n",
        "origin\n012\nAAAA\n",
        "origin\nx\nAAAA\n",
        "\n1\n" + "A" * 44 + "\n",
        "origin\n1\nAAAA\n",
    ],
)
def test_malformed_checkpoint_bodies_are_refused(text: str) -> None:
    with pytest.raises(NoteError):
        CheckpointBody.parse(text)


@pytest.mark.parametrize("control", ["\x00", "\t", "\r", "\x0b", "\x1b", "\x1f"])
def test_a_note_whose_text_holds_a_control_character_is_refused(control: str) -> None:
    note = f"origin{control}\n1\n\n\u2014 PeterNeumann {SIGNATURE}\n"
    with pytest.raises(NoteError, match="control characters other than newline"):
        open_note(note, Verifier.parse(VKEY))


ORDER = 2**252 + 27742317777372353535851937790883648493
"""L, the order of Ed25519's base point (RFC 8032 5.1)."""


def bent(signature: bytes, message: bytes) -> list[tuple[bytes, bytes]]:
    """(message, signature) pairs that must all be refused: every bit of the signature
    flipped, the message changed, the signature cut short with its tail moved to the front of
    the message (libsodium's signed message is signature || message), lengthened, S plus L
    (the same scalar, not canonical), and all zeros."""
    flips = [
        signature[:i] + bytes([signature[i] ^ 1 << bit]) + signature[i + 1 :]
        for i in range(len(signature))
        for bit in range(8)
    ]
    s_plus_order = (int.from_bytes(signature[32:], "little") + ORDER).to_bytes(32, "little")
    return [
        *((message, flipped) for flipped in flips),
        (message + b"!", signature),
        (signature[60:] + message, signature[:60]),
        (message, signature + b"\x00"),
        (message, signature[:32] + s_plus_order),
        (message, bytes(64)),
    ]


def test_libsodium_and_openssl_agree_on_every_signature() -> None:
    """The ledger checks signatures with libsodium, the offline verifier may with OpenSSL
    alone: both accept the signature made, and refuse every bent one."""
    signer = Signer.parse(SKEY)
    verifier, message = signer.verifier, TEXT.encode()
    signature = signer.private_key.sign(message)
    assert verifier.verify(message, signature)
    assert verifier.verify_with_openssl(message, signature)
    for text, variant in bent(signature, message):
        assert not verifier.verify(text, variant)
        assert not verifier.verify_with_openssl(text, variant)
