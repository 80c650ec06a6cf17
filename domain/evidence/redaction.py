"""Security redaction (methodology section 17): every value of credential form, and the run's
own model key in any spelling, is masked before a recording or log is stored or served."""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote

from domain.evidence.masking import Found, Span

NAME, VERSION = "security-redaction", 1

PATTERNS: dict[str, str] = {
    "anthropic_key": r"sk-ant-[A-Za-z0-9_-]{20,}",
    "openrouter_key": r"sk-or-v1-[A-Za-z0-9]{20,}",
    "openai_key": r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "stripe_key": r"(?:sk|rk)_live_[A-Za-z0-9]{16,}",
    "github_token": r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    "slack_token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
    "google_key": r"AIza[0-9A-Za-z_-]{35}",
    "aws_access_key_id": r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    "aws_secret_access_key": r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
    "jwt": r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "secret_assignment": (
        r"(?i:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Z0-9_]*)"
        r"[ \t]*[=:][ \t]*['\"]?(?P<value>[^\s'\"]{12,})"
    ),
}
"""Credential forms; each match must also look random (`random_enough`) to be masked."""

MIN_ENTROPY = 3.0
"""Bits per character a credential-form match must reach: keys are random, look-alikes are not."""


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def random_enough(kind: str, value: str) -> bool:
    """A credential is random: enough entropy, and letters mixed with digits. A git commit id or
    a SHA-256 is hex; an AWS secret key also mixes cases."""
    if kind == "aws_secret_access_key":
        return (
            any(c.islower() for c in value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() for c in value)
            and entropy(value) >= 4.0
        )
    return (
        entropy(value) >= MIN_ENTROPY
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def spellings(secret: str) -> list[str]:
    """Section 17: the run's own key as printed, URL-encoded, and base64-encoded at each of the
    three alignments it can take inside a longer base64 text."""
    found = {secret, quote(secret, safe="")}
    raw = secret.encode()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        # Drop the characters the padding bytes and the unfinished last group touch.
        start = (offset * 4 + 2) // 3
        end = len(encoded) - (4 if (offset + len(raw)) % 3 else 0)
        if end - start >= 8:
            found.add(encoded[start:end])
        found.add(base64.urlsafe_b64encode(b"\0" * offset + raw).decode()[start:end])
    return sorted((s for s in found if len(s) >= 8), key=len, reverse=True)


class CredentialFinder:
    """Finds credential-form values and the run's known secrets in visible text."""

    def __init__(self, known: Sequence[str] = ()) -> None:
        literals = [re.escape(s) for secret in known for s in spellings(secret)]
        groups = [f"(?P<known>{'|'.join(literals)})"] if literals else []
        groups += [f"(?P<{kind}>{pattern})" for kind, pattern in PATTERNS.items()]
        self.pattern = re.compile("|".join(groups))

    def __call__(self, text: str) -> Found:
        spans = []
        for match in self.pattern.finditer(text):
            kind = match.lastgroup or "known"
            if kind == "value":  # the value group of an assignment
                kind = "secret_assignment"
            if kind == "known":
                spans.append(Span(match.start(), match.end(), "run_model_key"))
                continue
            start, end = match.span("value") if kind == "secret_assignment" else match.span()
            if random_enough(kind, text[start:end]):
                spans.append(Span(start, end, kind))
        return Found(spans, None)
