"""Which values of a credential form are secrets (methodology section 17: "cualquier valor con
forma de secreto se elimina antes de guardar o servir la grabación"): a value under a form no
vendor's prefix identifies is judged here, one rule a form. Machine credentials (keys, tokens)
are random, so a look-alike that is not is left; a password is chosen by a person, so under a
password's name, in a password option or in a URL it is masked whatever it looks like."""

from __future__ import annotations

import math
import re
from collections import Counter

MIN_ENTROPY = 3.0
"""Bits per character a credential-form match must reach: keys are random, look-alikes are not."""
SEPARATORS = re.compile(r"[-_./+:~@]")
IDENTIFIER = re.compile(
    r"(?:(?:sha1:|sha256:)?(?:[0-9a-f]{40}|[0-9a-f]{64})"
    r"|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    r"|sha256:[a-z0-9+/]{43})",  # an OpenSSH key fingerprint (case folded)
)
PASSWORD_NAMES = ("password", "passwd", "_pass", "-pass", "_pwd")
"""How the name of a password ends (`PGPASSWORD`, `MYSQL_PWD`, `DB_PASS`); `PWD` and `OLDPWD`
alone are the shell's directories, and `pass:` a test summary."""
_NAME_END = re.compile(r"[\s'\"=:]*(?:\[[^\]]*\])?[\s'\"=:]*$")
NOT_A_PASSWORD = re.compile(
    r"\$.*"  # a variable: $DB_PASSWORD, ${DB_PASSWORD}, $(pass show db)
    r"|%\w+%"  # a Windows variable
    r"|<.*|\{.*\}"  # a placeholder or a template: <your password>, {{ .Values.password }}
    r"|[*x\u2022]+"  # masked already by the program that printed it
    r"|\[REDACTED\]"  # masked already by us (the marker of `redaction.MARKER`)
    r"|(?i:none|null|nil|true|false|str|string|bytes|int)[),;]*"  # a literal, a type in code
    r"|-.*"  # the next option: `--password --user bob` asks for the password
    # code: a call or a subscript, `getpass()`, `os.environ["DB_PASSWORD"]` (not `Abc(123`)
    r"|(?:[a-z_][a-z0-9_]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)[(\[].*",
)
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
AWS_REACH = 200
"""How far after an AWS context (the word, an access key id) a bare secret access key is
looked for: the next field of a CSV line or a table, the line after `echo $AWS_...`."""


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def joined_words(value: str) -> bool:
    """Words and numbers joined by separators: a date, a version, a slug, a setting's name
    (`2024-08-01.release`, `settings.SECRET_KEY`)."""
    parts = [part for part in SEPARATORS.split(value) if part]
    return len(parts) > 1 and all(
        p.isdigit() or p.islower() or p.isupper() or p.istitle() or len(p) <= 3 for p in parts
    )


def random_enough(value: str) -> bool:
    """Methodology section 17: a machine credential is random: enough entropy, letters mixed
    with digits or with each other's case, and not words and numbers joined."""
    letters = [c for c in value if c.isalpha()]
    mixed = any(c.isdigit() for c in value) or (
        any(c.isupper() for c in letters) and any(c.islower() for c in letters)
    )
    return bool(letters) and mixed and entropy(value) >= MIN_ENTROPY and not joined_words(value)


def is_identifier(value: str) -> bool:
    """A commit id, a SHA-256 digest, a UUID or a key fingerprint: what a cache key, a key id
    or `ssh-keygen`'s "key fingerprint" is, not a secret."""
    return IDENTIFIER.fullmatch(value.lower()) is not None


def password_name(name: str) -> bool:
    """Methodology section 17: a name that is a password's (`PGPASSWORD=`, `MYSQL_PWD=`,
    `"password": `, `db_pass:`), whatever comes before it."""
    return _NAME_END.sub("", name).lower().endswith(PASSWORD_NAMES)


def password_value(value: str) -> bool:
    """Methodology section 17: a password is masked whatever its entropy (`Autumn2025`,
    `changeme`); only what cannot be one is left: a variable, a placeholder, a literal or a
    call in code, or a value masked already."""
    return bool(value) and NOT_A_PASSWORD.fullmatch(value) is None


def assigned_secret(name: str, value: str) -> bool:
    """Methodology section 17: a value assigned to a password's name is a password; one
    assigned to a KEY, TOKEN or SECRET name is a secret when it is random and 12 characters or
    more; under a name that is only a KEY an identifier is left as it is (under a token or a
    secret name it never is)."""
    if password_name(name):
        return password_value(value)
    plain_key = not any(word in name.lower() for word in ("token", "secret", "passw"))
    return len(value) >= 12 and random_enough(value) and not (plain_key and is_identifier(value))


def url_password(value: str) -> bool:
    """Methodology section 17: the password of `scheme://user:password@host` is masked whatever
    its entropy (`postgres://app:Autumn2025@db`), unless it is a variable or a placeholder."""
    return password_value(value)


def aws_secret_shaped(value: str) -> bool:
    """Methodology section 17: a bare AWS secret access key (40 characters of base64, random:
    both cases and a digit or a `/` or `+`), as it follows an access key id or an AWS name."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() or c in "/+" for c in value)
    )
