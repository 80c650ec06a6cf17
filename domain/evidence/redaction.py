"""Security redaction (methodology section 17): every value of credential form, and the run's
own model key in any spelling, is masked before a recording or log is stored or served."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Sequence
from urllib.parse import quote

from domain.evidence.masking import Found, Span
from domain.evidence.scan import Scanner
from domain.evidence.secret_values import (
    AWS_REACH,
    AWS_SECRET,
    assigned_secret,
    aws_secret_shaped,
    password_name,
    password_value,
    random_enough,
    url_password,
)

NAME, VERSION = "security-redaction", 4


ASSIGNED_WORDS = ("key", "token", "secret", "session", "passwd", "password", "_pass", "_pwd")
VALUE = r"(\"[^\"\n]*\"|'[^'\n]*'|['\"]?[^\s'\"]+)"
"""A value: quoted (the quotes are not masked), or up to the next space or quote."""
CLIENTS = (
    r"(?:mysql|mariadb)(?:dump|admin|import|show|check|slap|sh|binlog"
    r"|-dump|-admin|-import|-show|-check|-slap)?(?:[ \t][^\n;|&]*?)?[ \t]-p"
    r"|sshpass(?:[ \t][^\n;|&]*?)?[ \t]-p[ \t]*"
    r"|redis-cli(?:[ \t][^\n;|&]*?)?[ \t]-a[ \t]+"
)
"""Clients whose password option is a short one: mysql's `-pSECRET` (attached: `-p NAME` names
a database), sshpass's `-p SECRET`, redis-cli's `-a SECRET`."""
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
    # An AWS context (the secret access key that follows it is looked for after the scan).
    "aws_context": r"(?i:aws)",
    # Forms without a vendor's prefix: masked only when the value looks random.
    "sk_key": r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI's older keys, and many others
    # scheme://user:password@host: the password, whatever it looks like (the last `@` ends it).
    "url_credential": r"://[^\s:/@'\"]*:([^\s/'\"]+)@",
    # --password VALUE, --passwd=VALUE, --pass VALUE: whatever the value looks like.
    "password_option": r"--pass(?:word|wd)?(?:[ \t]+|=)" + VALUE,
    # mysql -pVALUE, sshpass -p VALUE, redis-cli -a VALUE: whatever the value looks like.
    "client_password": "(?:" + CLIENTS + ")" + VALUE,
    # KEY=, TOKEN=, SECRET=, PASSWORD= (aws_secret_access_key = ..., "SecretAccessKey": ...,
    # and aws configure's "Secret Access Key [None]: " among them): the value.
    "secret_assignment": "(?i:" + "|".join(ASSIGNED_WORDS) + ")"
    r"[A-Za-z0-9_ ]{0,40}?['\"]?(?:[ \t]*\[[^\]\n]{0,40}\])?[ \t]*[=:][ \t]*" + VALUE,
    # Authorization: Bearer <opaque token> / Basic <base64 of user:password>.
    "authorization": r"(?i:bearer|basic)[ \t]+([A-Za-z0-9._~+/=-]{12,})",
    # Cookie: / Set-Cookie: headers: each value of the line is judged on its own.
    "cookie_header": r"(?i:set-cookie|cookie)[ \t]*:[ \t]*([^\r\n]{1,1000})",
    # -p VALUE, -pVALUE of any other program: masked when it looks random.
    "password_argument": r"[ \t]-p[ \t]*([^\s'\"-][^\s'\"]{7,})",
}
"""Credential forms; a match (its group, where it has one) is masked."""
_GROUPS = {kind: re.compile(pattern).groups for kind, pattern in PATTERNS.items()}
GUESSED = frozenset({"sk_key", "authorization", "password_argument"})
"""Forms no vendor's prefix identifies: masked only when the value looks random; the others
are masked on sight, or judged by their own rule (`JUDGED`)."""
LOOKED_INSIDE = frozenset(
    {"secret_assignment", "authorization", "password_argument", "password_option"}
)
"""Forms whose value, when it is not a secret itself (a URL, a word), may hold one."""
COOKIE = re.compile(r"([^=;\s]+)=([^;\s]+)")
MARKER = "[REDACTED]"
"""What a credential becomes, whatever its length (section 17: a mask that kept the length
told a guesser how long the secret was)."""


def assignment(name: str, value: str) -> str | None:
    """A value assigned to a name: a password (its name says so), another secret, or nothing."""
    if "://" in value or not assigned_secret(name, value):
        return None
    return "password_assignment" if password_name(name) else "secret_assignment"


JUDGED: dict[str, Callable[[str, str], str | None]] = {
    "secret_assignment": assignment,
    "url_credential": lambda _, value: "url_credential" if url_password(value) else None,
    "password_option": lambda _, value: "password_option" if password_value(value) else None,
    "client_password": lambda _, value: "client_password" if password_value(value) else None,
}
"""Forms judged by their own rule (`domain.evidence.secret_values`), given the text before the
value (a name) and the value: the kind of secret found, or None."""
AWS_CONTEXTS = frozenset({"aws_context", "aws_access_key_id"})
"""Forms after which a bare AWS secret access key is looked for."""


def spellings(secret: str) -> list[str]:
    """Section 17: a known key (the run's own) as printed, URL-encoded, hex-encoded (either
    case), and base64-encoded at each of the three alignments it can take inside a longer
    base64 text."""
    raw = secret.encode()
    found = {secret, quote(secret, safe=""), raw.hex(), raw.hex().upper()}
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
        contexts: list[int] = []
        for match in self.pattern.finditer(text):
            form = self.forms[match.lastindex]
            start, end = _unquoted(text, *match.span(self.value_group.get(form, 0)))
            if spans and offset + start < spans[-1].end:
                continue  # inside a key already extended over it
            if form in AWS_CONTEXTS:
                contexts.append(match.end())
            value = text[start:end]
            if form == "run_model_key":
                start, end = self._whole_key(text, start, end)
                spans.append(Span(offset + start, offset + end, form))
            elif form == "cookie_header":
                spans += self._cookie_values(value, offset + start)
            elif form == "aws_context":
                continue
            elif kind := self._secret(form, text[match.start() : start], value):
                spans.append(Span(offset + start, offset + end, kind))
            elif form in LOOKED_INSIDE:  # a URL, a word: a credential may be inside it
                spans += self(value, offset + start).spans
        if contexts:
            spans = sorted(spans + _bare_aws_secrets(text, contexts, spans, offset))
        return Found(spans, None)

    def _secret(self, form: str, name: str, value: str) -> str | None:
        """What a form's value is, if it is a secret: the run's own key, or that form."""
        if self.known and self.known.search(value):
            return "run_model_key"
        if form in JUDGED:
            return JUDGED[form](name, value)
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


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    """A value without the quotes around it (or the opening one, where it never closed)."""
    if end > start and text[start] in "'\"":
        closed = end - start > 1 and text[end - 1] == text[start]
        return start + 1, end - closed
    return start, end


def _bare_aws_secrets(text: str, contexts: list[int], found: list[Span], offset: int) -> list[Span]:
    """Section 17: each bare AWS secret access key within `AWS_REACH` characters after an AWS
    context, where nothing found already covers it."""
    taken = [(s.start - offset, s.end - offset) for s in found]
    spans: list[Span] = []
    for context in contexts:
        for match in AWS_SECRET.finditer(text, context, context + AWS_REACH):
            start, end = match.span()
            clear = all(end <= a or start >= b for a, b in taken)
            if clear and aws_secret_shaped(match.group()):
                taken.append((start, end))
                spans.append(Span(offset + start, offset + end, "aws_secret_access_key"))
    return spans


def _common_run(text: str, start: int, end: int, spelling: str, at: int) -> tuple[int, int]:
    """How far text[start:end], found at spelling[at:], goes on matching the spelling."""
    first, i = start, at
    while first > 0 and i > 0 and text[first - 1] == spelling[i - 1]:
        first, i = first - 1, i - 1
    last, j = end, at + end - start
    while last < len(text) and j < len(spelling) and text[last] == spelling[j]:
        last, j = last + 1, j + 1
    return first, last
