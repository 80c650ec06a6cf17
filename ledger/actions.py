"""Operators' signatures: an action's canonical bytes (the one codec that makes every hashed
or signed byte) signed with Ed25519 by a key in the signed-note format the ledger's own key
uses, so an auditor checks both with the same tools."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

import msgspec

from domain.events.operators import OperatorActed, OperatorAction
from domain.operators import Signed, SignedAction, UnsignedAction
from ledger.codec import encode_json
from ledger.note import NoteError, Signer, Verifier


def signing_bytes(signed: UnsignedAction | OperatorActed) -> bytes:
    """The canonical JSON of everything an action's signature covers: the action, the ledger
    it is for, the operator's name, the key id, the sequence and the signing time (sorted keys,
    compact, UTC), which `json.dumps(..., sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)` gives too from the event's JSON."""
    return encode_json(
        UnsignedAction(
            action=signed.action,
            ledger=signed.ledger,
            operator=signed.operator,
            key_id=signed.key_id,
            sequence=signed.sequence,
            signed_at=signed.signed_at,
        )
    )


def sign(
    signer: Signer, action: OperatorAction, sequence: int, signed_at: datetime, ledger: str
) -> SignedAction:
    """The action signed by `signer` as its `sequence`th, for the ledger of origin `ledger`."""
    unsigned = UnsignedAction(
        action=action,
        ledger=ledger,
        operator=signer.name,
        key_id=signer.verifier.key_id.hex(),
        sequence=sequence,
        signed_at=signed_at,
    )
    signature = signer.private_key.sign(signing_bytes(unsigned))
    return SignedAction(
        **msgspec.structs.asdict(unsigned), signature=base64.b64encode(signature).decode()
    )


def signature_holds(signed: Signed, public_key: str) -> bool:
    """Whether the action's signature verifies with the verifier key `public_key`."""
    try:
        verifier = Verifier.parse(public_key)
        signature = base64.b64decode(signed.signature, validate=True)
    except (NoteError, binascii.Error):
        return False
    if verifier.key_id.hex() != signed.key_id or verifier.name != signed.operator:
        return False
    return verifier.verify(signing_bytes(signed), signature)


class LedgerSignatures:
    """The `Signatures` the ledger's folds and checks use (`domain.operators`)."""

    def holds(self, signed: Signed, public_key: str) -> bool:
        return signature_holds(signed, public_key)

    def key_id(self, public_key: str, name: str) -> str | None:
        try:
            verifier = Verifier.parse(public_key)
        except NoteError:
            return None
        return verifier.key_id.hex() if verifier.name == name else None


SIGNATURES = LedgerSignatures()


def acted(signed: SignedAction, decides: int = 0) -> OperatorActed:
    """The event that records a signed action exactly as it was signed, followed by the
    `decides` facts it decides."""
    return OperatorActed(
        action=signed.action,
        operator=signed.operator,
        key_id=signed.key_id,
        sequence=signed.sequence,
        signed_at=signed.signed_at,
        signature=signed.signature,
        ledger=signed.ledger,
        decides=decides,
    )
