"""Security redaction (methodology section 17): every value of credential form, and the run's
own model key in any spelling, is masked before a recording or log is stored or served."""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote

import re2

from domain.evidence.masking import Found, Span

NAME, VERSION = "security-redaction", 1


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


ASSIGNED_WORDS = ("key", "token", "secret", "passwd", "password")
PATTERNS: dict[str, str] = {
    # Every pattern starts with a fixed text, so the scan stays a linear RE2 automaton.
    "openai_style_key": r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI sk-/sk-proj-, Anthropic, OpenRouter
    "stripe_key": r"[sr]k_live_[A-Za-z0-9]{16,}",
    "github_token": r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}",
    "slack_token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
    "google_key": r"AIza[0-9A-Za-z_-]{35}",
    "aws_access_key_id": r"A[KS]IA[0-9A-Z]{16}",
    "jwt": r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    # KEY=, TOKEN=, SECRET=, PASSWORD= (aws_secret_access_key = ... among them): the value.
    "secret_assignment": "(?:" + "|".join(_any_case(w) for w in ASSIGNED_WORDS) + ")"
    r"[A-Za-z0-9_]*[ \t]*[=:][ \t]*['\"]?([^\s'\"]{12,})",
}
"""Credential forms; each match must also look random (`random_enough`) to be masked."""

MIN_ENTROPY = 3.0
"""Bits per character a credential-form match must reach: keys are random, look-alikes are not."""


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def random_enough(value: str) -> bool:
    """A credential is random: enough entropy, and letters mixed with digits (a word, a path or a
    version string is not)."""
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
        groups = [f"(?P<run_model_key>{'|'.join(literals)})"] if literals else []
        groups += [f"(?P<{kind}>{pattern})" for kind, pattern in PATTERNS.items()]
        self.pattern = re2.compile("|".join(groups))
        self.value = self.pattern.groupindex["secret_assignment"] + 1

    def __call__(self, text: str) -> Found:
        spans = []
        for match in self.pattern.finditer(text):
            kind = match.lastgroup or "run_model_key"
            if kind == "run_model_key":
                spans.append(Span(match.start(), match.end(), kind))
                continue
            start, end = match.span(self.value) if kind == "secret_assignment" else match.span()
            if random_enough(text[start:end]):
                spans.append(Span(start, end, kind))
        return Found(spans, None)
