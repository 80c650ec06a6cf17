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
from domain.evidence.scan import Scanner

NAME, VERSION = "security-redaction", 1


ASSIGNED_WORDS = ("key", "token", "secret", "passwd", "password")
PATTERNS: dict[str, str] = {
    # Every pattern starts with a fixed text, so the scan stays a linear RE2 automaton; the
    # vendors' own prefixes come first, so they win over the plain `sk-` at the same place.
    "openai_key": r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
    "anthropic_key": r"sk-ant-[A-Za-z0-9_-]{20,}",
    "openrouter_key": r"sk-or-v1-[A-Za-z0-9]{20,}",
    "stripe_key": r"[sr]k_live_[A-Za-z0-9]{16,}",
    "github_token": r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}",
    "slack_token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
    "google_key": r"AIza[0-9A-Za-z_-]{35}",
    "aws_access_key_id": r"A[KS]IA[0-9A-Z]{16}",
    "jwt": r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    # Forms without a vendor's prefix: masked only when the value looks random.
    "sk_key": r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI's older keys, and many others
    # https://user:token@host: the password part.
    "url_credential": r"://[^\s:/@'\"]+:([^\s/@'\"]{8,})@",
    # KEY=, TOKEN=, SECRET=, PASSWORD= (aws_secret_access_key = ..., "SecretAccessKey": ...,
    # and aws configure's "Secret Access Key [None]: " among them): the value.
    "secret_assignment": "(?i:" + "|".join(ASSIGNED_WORDS) + ")"
    r"[A-Za-z0-9_ ]{0,40}?['\"]?(?:[ \t]*\[[^\]\n]{0,40}\])?[ \t]*[=:][ \t]*['\"]?([^\s'\"]{12,})",
    # Authorization: Bearer <opaque token> / Basic <base64 of user:password>.
    "authorization": r"(?i:bearer|basic)[ \t]+([A-Za-z0-9._~+/=-]{12,})",
    # Cookie: / Set-Cookie: headers: each value of the line is judged on its own.
    "cookie_header": r"(?i:set-cookie|cookie)[ \t]*:[ \t]*([^\r\n]{1,1000})",
    # --password VALUE, --passwd=VALUE, -pVALUE, -p VALUE (mysql and friends).
    "password_argument": r"(?:--pass(?:word|wd)?(?:[ \t]+|=)|[ \t]-p[ \t]*)([^\s'\"-][^\s'\"]{7,})",
}
"""Credential forms; a match (its group, where it has one) is masked."""
_GROUPS = {kind: re.compile(pattern).groups for kind, pattern in PATTERNS.items()}
GUESSED = frozenset(
    {"sk_key", "url_credential", "secret_assignment", "authorization", "password_argument"}
)
"""Forms no vendor's prefix identifies: masked only when the value looks random; the others
are masked on sight."""
LOOKED_INSIDE = frozenset({"secret_assignment", "authorization", "password_argument"})
"""Forms whose value, when it is not a secret itself (a URL, a word), may hold one."""
COOKIE = re.compile(r"([^=;\s]+)=([^;\s]+)")

MIN_ENTROPY = 3.0
"""Bits per character a credential-form match must reach: keys are random, look-alikes are not."""


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


SEPARATORS = re.compile(r"[-_./+:~@]")


def joined_words(value: str) -> bool:
    """Words and numbers joined by separators: a date, a version, a slug, a setting's name
    (`2024-08-01.release`, `settings.SECRET_KEY`)."""
    parts = [part for part in SEPARATORS.split(value) if part]
    return len(parts) > 1 and all(
        p.isdigit() or p.islower() or p.isupper() or p.istitle() or len(p) <= 3 for p in parts
    )


def random_enough(value: str) -> bool:
    """A credential is random: enough entropy, letters mixed with digits or with each other's
    case, and not words and numbers joined."""
    letters = [c for c in value if c.isalpha()]
    mixed = any(c.isdigit() for c in value) or (
        any(c.isupper() for c in letters) and any(c.islower() for c in letters)
    )
    return bool(letters) and mixed and entropy(value) >= MIN_ENTROPY and not joined_words(value)


IDENTIFIER = re.compile(
    r"(?:(?:sha1:|sha256:)?(?:[0-9a-f]{40}|[0-9a-f]{64})"
    r"|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    r"|sha256:[a-z0-9+/]{43})",  # an OpenSSH key fingerprint (case folded)
)


def is_identifier(value: str) -> bool:
    """A commit id, a SHA-256 digest, a UUID or a key fingerprint: what a cache key, a key id
    or `ssh-keygen`'s "key fingerprint" is, not a secret."""
    return IDENTIFIER.fullmatch(value.lower()) is not None


def assigned_secret(name: str, value: str) -> bool:
    """A value assigned to a KEY, TOKEN, SECRET or PASSWORD name is a secret when it is random;
    under a name that is only a KEY an identifier is left as it is (under a token, a secret or
    a password name it never is)."""
    plain_key = not any(word in name.lower() for word in ("token", "secret", "passw"))
    return random_enough(value) and not (plain_key and is_identifier(value))


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
        found.add(encoded[start:end])
        found.add(base64.urlsafe_b64encode(b"\0" * offset + raw).decode()[start:end])
    return sorted((s for s in found if len(s) >= 8), key=len, reverse=True)


FRAGMENT = 12
"""Any run of this many characters of the run's own key is masked, with the rest of the key
around it: a key shown in part (an escape sequence swallowing a character of it, a display
cut short) is still the key."""


class CredentialFinder:
    """Finds credential-form values and the run's known secrets in visible text."""

    def __init__(self, known: Sequence[str] = ()) -> None:
        self.spelled = [s for secret in known for s in spellings(secret)]
        fragments = sorted(
            {
                s[i : i + FRAGMENT]
                for s in self.spelled
                for i in range(max(len(s) - FRAGMENT, 0) + 1)
            }
        )
        literals = "|".join(map(re.escape, fragments))
        groups = [f"(?P<run_model_key>{literals})"] if fragments else []
        groups += [f"(?P<{kind}>{pattern})" for kind, pattern in PATTERNS.items()]
        self.pattern = Scanner("|".join(groups))
        self.sign = "|".join(([literals] if fragments else []) + list(PATTERNS.values()))
        """The same forms, their groups unnamed (a text without them has nothing to find)."""
        self.known = Scanner(literals) if fragments else None
        self.forms: dict[int, str] = {}
        self.value_group: dict[str, int] = {}
        index = 1  # counted here: the automaton is built only when a text is scanned
        for form in ["run_model_key"] * bool(fragments) + list(PATTERNS):
            self.forms[index] = form
            if _GROUPS.get(form):
                self.value_group[form] = index + 1
            index += 1 + _GROUPS.get(form, 0)

    def __call__(self, text: str, offset: int = 0) -> Found:
        spans: list[Span] = []
        for match in self.pattern.finditer(text):
            form = self.forms[match.lastindex]
            start, end = match.span(self.value_group.get(form, 0))
            if spans and offset + start < spans[-1].end:
                continue  # inside a key already extended over it
            value = text[start:end]
            if form == "run_model_key":
                start, end = self._whole_key(text, start, end)
                spans.append(Span(offset + start, offset + end, form))
            elif form == "cookie_header":
                spans += self._cookie_values(value, offset + start)
            elif kind := self._secret(form, text[match.start() : start], value):
                spans.append(Span(offset + start, offset + end, kind))
            elif form in LOOKED_INSIDE:  # a URL, a word: a credential may be inside it
                spans += self(value, offset + start).spans
        return Found(spans, None)

    def _secret(self, form: str, name: str, value: str) -> str | None:
        """What a form's value is, if it is a secret: the run's own key, or that form."""
        if self.known and self.known.search(value):
            return "run_model_key"
        if form == "secret_assignment":
            return form if "://" not in value and assigned_secret(name, value) else None
        return form if form not in GUESSED or random_enough(value) else None

    def _cookie_values(self, line: str, offset: int) -> list[Span]:
        """A cookie header's session values: each one that is the run's key or looks random."""
        spans = []
        for pair in COOKIE.finditer(line):
            start, end = pair.span(2)
            value = line[start:end]
            if (self.known and self.known.search(value)) or random_enough(value):
                spans.append(Span(offset + start, offset + end, "cookie_value"))
            else:
                spans += self(value, offset + start).spans
        return spans

    def _whole_key(self, text: str, start: int, end: int) -> tuple[int, int]:
        """A fragment of the key, extended over as much of the key as the text goes on with."""
        best = (start, end)
        for spelling in self.spelled:
            at = spelling.find(text[start:end])
            while at >= 0:
                first, last = _common_run(text, start, end, spelling, at)
                if last - first > best[1] - best[0]:
                    best = (first, last)
                at = spelling.find(text[start:end], at + 1)
        return best


def _common_run(text: str, start: int, end: int, spelling: str, at: int) -> tuple[int, int]:
    """How far text[start:end], found at spelling[at:], goes on matching the spelling."""
    first, i = start, at
    while first > 0 and i > 0 and text[first - 1] == spelling[i - 1]:
        first, i = first - 1, i - 1
    last, j = end, at + end - start
    while last < len(text) and j < len(spelling) and text[last] == spelling[j]:
        last, j = last + 1, j + 1
    return first, last
