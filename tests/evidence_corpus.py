"""A corpus of terminal recordings and logs for section 17: secrets of every form the issue
names planted whole, split across events, wrapped in colour codes, base64- and URL-encoded;
and clean files full of look-alikes. Every secret is drawn here from a seeded generator, so no
credential is in the repository and the corpus is the same on every machine."""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import quote

ALNUM = string.ascii_letters + string.digits
TOKEN = ALNUM + "_-"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
UPPER = string.ascii_uppercase + string.digits

MODEL_KEY = "sk-proj-" + "".join(random.Random(7).choices(TOKEN, k=64))
"""The run's own model key: known to the system during the run."""
MODEL_KEY_SYMBOLS = "mk/" + "".join(random.Random(8).choices(B64, k=40)) + "=="
"""A model key with characters URL-encoding changes (a provider may issue any form)."""
BANNERS = [r"^Welcome to ToolX v\d+(?:\.\d+)*.*$"]


class Plant(NamedTuple):
    """A line a program prints, and the secrets in it that no served copy may keep."""

    text: str
    secrets: list[str]


class Case(NamedTuple):
    name: str
    kind: str  # "cast" or "log"
    content: bytes
    secrets: list[str]
    model_key: str | None = None


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choices(alphabet, k=n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    header = _b64url(b'{"alg":"HS256","typ":"JWT"}')
    claims = _b64url(json.dumps({"sub": _draw(rng, HEX, 12), "iat": 1790000000}).encode())
    return f"{header}.{claims}.{_draw(rng, TOKEN, 43)}"


def _pem(rng: random.Random) -> Plant:
    body = [_draw(rng, B64, 64) for _ in range(4)]
    block = "\r\n".join(["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"])
    return Plant(f"$ cat id_rsa\r\n{block}\r\n", body)


def _shown(prefix: str, secret: str, suffix: str = "\r\n") -> Plant:
    return Plant(prefix + secret + suffix, [secret])


def _aws_secret(rng: random.Random) -> str:
    """A secret access key: 40 characters of base64 (both cases and a digit, as AWS makes them)."""
    return "wJ7" + _draw(rng, B64, 37)


def _aws_csv(rng: random.Random) -> Plant:
    """An access key's CSV line, as IAM's console gives it: the id, then the bare secret."""
    key_id, secret = "AKIA" + _draw(rng, UPPER, 16), _aws_secret(rng)
    return Plant(f"$ cat credentials.csv\r\nci-user,{key_id},{secret}\r\n", [key_id, secret])


FORMS: dict[str, Callable[[random.Random], Plant]] = {
    "openai": lambda r: _shown("OPENAI_KEY used: ", "sk-" + _draw(r, ALNUM, 48)),
    "openai_project": lambda r: _shown("using ", "sk-proj-" + _draw(r, TOKEN, 100)),
    "anthropic": lambda r: _shown("x-api-key: ", "sk-ant-api03-" + _draw(r, TOKEN, 93) + "AA"),
    "openrouter": lambda r: _shown("Bearer ", "sk-or-v1-" + _draw(r, HEX, 64)),
    "aws_access_key_id": lambda r: _shown("aws_access_key_id = ", "AKIA" + _draw(r, UPPER, 16)),
    "aws_secret_access_key": lambda r: _shown("aws_secret_access_key = ", _draw(r, B64, 40)),
    "aws_configure": lambda r: _shown("AWS Secret Access Key [None]: ", _draw(r, B64, 40)),
    "aws_sts_json": lambda r: _shown('    "SecretAccessKey": "', _draw(r, B64, 40), '",\r\n'),
    "github_classic": lambda r: _shown("token ", "ghp_" + _draw(r, ALNUM, 36)),
    "github_oauth": lambda r: _shown("gh auth token: ", "gho_" + _draw(r, ALNUM, 36)),
    "github_app": lambda r: _shown("installation ", "ghs_" + _draw(r, ALNUM, 36)),
    "github_pat": lambda r: _shown(
        "pat=", "github_pat_" + _draw(r, ALNUM, 22) + "_" + _draw(r, ALNUM, 59)
    ),
    "slack": lambda r: _shown(
        "SLACK ", "xoxb-" + _draw(r, string.digits, 12) + "-" + _draw(r, ALNUM, 24)
    ),
    "google": lambda r: _shown("maps key ", "AIza" + _draw(r, TOKEN, 35)),
    "stripe": lambda r: _shown("charging with ", "sk_live_" + _draw(r, ALNUM, 24)),
    "jwt": lambda r: _shown("Authorization: Bearer ", _jwt(r)),
    "pem_private_key": _pem,
    "key_assignment": lambda r: _shown("export SERVICE_API_KEY=", _draw(r, ALNUM, 32)),
    "token_assignment": lambda r: _shown("AUTH_TOKEN: ", _draw(r, TOKEN, 40)),
    "secret_assignment": lambda r: _shown("CLIENT_SECRET='", _draw(r, ALNUM, 28), "'\r\n"),
    "password_assignment": lambda r: _shown("DB_PASSWORD=", _draw(r, ALNUM + "!#%", 20) + "7"),
    "url_credential": lambda r: _shown(
        "git clone https://oauth2:", _draw(r, ALNUM, 20), "@x.org/r"
    ),
    "bearer_opaque": lambda r: _shown("Authorization: Bearer ", _draw(r, ALNUM + "._-", 48)),
    "basic_auth": lambda r: _shown(
        "authorization: basic ", base64.b64encode(f"ci:{_draw(r, ALNUM, 18)}".encode()).decode()
    ),
    "cookie": lambda r: _shown("Cookie: theme=dark; sessionid=", _draw(r, ALNUM, 32)),
    "set_cookie": lambda r: _shown(
        "Set-Cookie: session=", _draw(r, TOKEN, 40), "; Path=/; HttpOnly\r\n"
    ),
    "password_argument": lambda r: _shown("$ app login --password ", _draw(r, ALNUM, 20)),
    "password_flag": lambda r: _shown("$ mysql -u root -p", _draw(r, ALNUM, 16)),
    # Passwords whatever they look like (words, no digits; words joined): issue 26.
    "pgpassword": lambda r: _shown("PGPASSWORD=", "correcthorsebattery", " psql -h db\r\n"),
    "mysql_pwd": lambda r: _shown("MYSQL_PWD=", "Summer-Holidays-2025", " mysql -u app\r\n"),
    "mysql_password_flag": lambda r: _shown("$ mysql -u root -p", "correcthorsestaple", " db\r\n"),
    "sshpass": lambda r: _shown("$ sshpass -p ", "correcthorsebattery", " ssh deploy@h\r\n"),
    "redis_cli": lambda r: _shown("$ redis-cli -h cache -a ", "correcthorsebattery", " ping\r\n"),
    "password_option": lambda r: _shown("$ app --password=", "Summer-Holidays-2025"),
    "url_password": lambda r: _shown(
        "DATABASE_URL=postgres://app:", "correcthorsebattery", "@db:5432/app\r\n"
    ),
    "redis_url_password": lambda r: _shown(
        "redis://:", "Summer-Holidays-2025", "@cache:6379/0\r\n"
    ),
    "aws_bare_after_key_id": _aws_csv,
    "aws_bare_echoed": lambda r: _shown("$ echo $AWS_SECRET_ACCESS_KEY\r\n", _aws_secret(r)),
}


def _colour(text: str, secret: str) -> str:
    """The secret in colour, the colour changing in its middle (as a highlighter prints it)."""
    half = len(secret) // 2
    coloured = f"\x1b[1;31m{secret[:half]}\x1b[0m\x1b[32m{secret[half:]}\x1b[0m"
    return text.replace(secret, coloured)


def _split(text: str, secret: str) -> list[str]:
    """Two output events that cut the secret in two."""
    cut = text.index(secret) + len(secret) // 2
    return [text[:cut], text[cut:]]


PREAMBLE = ["Welcome to ToolX v2.3.1 (vendor build)\r\n", "$ make test\r\n"]
TAIL = ["collected 12 items\r\n", "12 passed in 0.41s\r\n"]


def recording(texts: list[str], version: int = 2, header: dict[str, object] | None = None) -> bytes:
    """A recording of the texts as output events, with an input event, a marker, a resize and
    (v3) a comment among them; times written the way recorders write them."""
    lines = [json.dumps({"version": version, "width": 100, "height": 30, **(header or {})})]
    events = [("o", t) for t in texts]
    events[1:1] = [("i", "make test\r"), ("m", "start"), ("r", "120x40")]
    clock = 0.0
    for number, (code, data) in enumerate(events):
        step = 0.25 + number / 7
        clock += step
        time = f"{step:.6f}" if version == 3 else f"{clock:.6f}".rstrip("0").rstrip(".")
        lines.append(f"[{time}, {json.dumps(code)}, {json.dumps(data)}]")
        if version == 3 and number == 1:
            lines.append("# resumed")
    return "".join(line + "\n" for line in lines).encode()


def log(texts: list[str]) -> bytes:
    return "".join(texts).replace("\r\n", "\n").encode()


def planted() -> list[Case]:
    """Every form whole, split across events, in colour, in a log; then the run's own key."""
    cases = []
    for number, (form, make) in enumerate(FORMS.items()):
        plant = make(random.Random(f"{form}-{number}"))
        version = 2 + number % 2
        first = plant.secrets[0]
        placements = {
            "whole": [plant.text],
            "split": _split(plant.text, first),
            "colour": [_colour(plant.text, first)],
        }
        for placement, texts in placements.items():
            content = recording([*PREAMBLE, *texts, *TAIL], version)
            cases.append(Case(f"{form}-{placement}", "cast", content, plant.secrets))
        cases.append(Case(f"{form}-log", "log", log([*PREAMBLE, plant.text, *TAIL]), plant.secrets))
    return cases + model_key_cases()


def model_key_cases() -> list[Case]:
    """Section 17: the run's own key, printed, split, coloured, in a log, in the header's
    environment, base64-encoded at each alignment and URL-encoded."""
    key = MODEL_KEY
    shown = f"key loaded: {key}\r\n"
    texts = {
        "whole": [shown],
        "split": _split(shown, key),
        "colour": [_colour(shown, key)],
    }
    cases = [
        Case(f"model-key-{name}", "cast", recording([*PREAMBLE, *t, *TAIL]), [key], key)
        for name, t in texts.items()
    ]
    cases.append(Case("model-key-log", "log", log([*PREAMBLE, shown, *TAIL]), [key], key))
    header = {"env": {"SHELL": "/bin/bash", "MODEL_API_KEY": key}, "command": f"agent --key {key}"}
    cases.append(
        Case("model-key-header", "cast", recording([*PREAMBLE, *TAIL], 3, header), [key], key)
    )
    for prefix in ("", "u", "u:"):  # the three alignments inside a longer base64 text
        encoded = base64.b64encode(f"{prefix}{key}".encode()).decode()
        text = f"Authorization: Basic {encoded}\r\n"
        cases.append(
            Case(
                f"model-key-base64-{len(prefix)}",
                "cast",
                recording([*PREAMBLE, text, *TAIL]),
                [encoded[4:-4]],
                key,
            )
        )
    encoded = quote(MODEL_KEY_SYMBOLS, safe="")
    text = f"GET /v1/models?key={encoded} 200\r\n"
    cases.append(
        Case(
            "model-key-url-encoded",
            "cast",
            recording([*PREAMBLE, text, *TAIL]),
            [encoded],
            MODEL_KEY_SYMBOLS,
        )
    )
    return cases


CLEAN: dict[str, list[str]] = {
    "git-log": [
        "$ git log --oneline -3\r\n",
        "3f78685 Fix the parser\r\n",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\r\n",
        "Merge: 89e6c98 2b4d1f0\r\n",
    ],
    "sha256sum": [
        "$ sha256sum dist/*\r\n",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz\r\n",
    ],
    "docker-digest": [
        "Digest: sha256:4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1\r\n",
        "Status: Downloaded newer image for debian@sha256:4bc4\r\n",
    ],
    "uuids": [
        "request id 123e4567-e89b-12d3-a456-426614174000\r\n",
        "$ uuidgen\r\nf47ac10b-58cc-4372-a567-0e02b2c3d479\r\n",
    ],
    "sklearn": [
        "$ pip install scikit-learn sk-learn-extra\r\n",
        "Successfully installed scikit-learn-1.5.2 sk-learn-preprocessing-toolkit\r\n",
    ],
    "low-entropy-secrets": [  # a password is masked whatever it looks like; these are not
        "SECRET=secret\r\n",
        "API_KEY=changeme\r\n",
        "TOKEN=abc123\r\n",
    ],
    "cache-keys": [
        "Cache restored from key: 3f786850e387550fdab836ed7e6dc881de23001b\r\n",
        "primary key: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\r\n",
        "key: 123e4567-e89b-12d3-a456-426614174000\r\n",
    ],
    "env-references": [
        "export API_KEY=$OPENAI_API_KEY\r\n",
        "TOKEN=${GITHUB_TOKEN}\r\n",
        "secret_key = settings.SECRET_KEY\r\n",
    ],
    "token-urls": [
        "TOKEN_URL=https://auth.example.com/v1/oauth/token\r\n",
        "API_KEY_DOCS=https://docs.example.com/keys/overview\r\n",
    ],
    "hex-addresses": [
        "<Parser object at 0x7f3a2b1c4d5e>\r\n",
        "Segmentation fault at 0x00007ffd5e8c1a20\r\n",
    ],
    "docs-prefixes": [
        "Tokens start with ghp_ or gho_; keys with sk- or AIza.\r\n",
        "Set AKIA... in the console.\r\n",
    ],
    "base64-content": [
        "$ echo hello world | base64\r\naGVsbG8gd29ybGQK\r\n",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk\r\n",
    ],
    "pip-hashes": [
        "requests==2.32.3 --hash=sha256:"
        "70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6\r\n",
        "integrity sha512-9VGjrMsG1vePxcSweQsN20KY/c4zN0h9fLjqAbwbPfahM3t+NL+M9HC8x"
        "eXG2I8pX5NoamTGNuomEUFI7fcUjA==\r\n",
    ],
    "jwt-docs": [
        "A JWT looks like eyJhbGciOi...; decode it with jwt.io\r\n",
    ],
    "public-keys": [
        "-----BEGIN PUBLIC KEY-----\r\n"
        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\r\n",
        "-----END PUBLIC KEY-----\r\n",
        "-----BEGIN CERTIFICATE-----\r\n"
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\r\n",
        "-----END CERTIFICATE-----\r\n",
    ],
    "ssh-keygen": [
        "Your public key has been saved in /home/dev/.ssh/id_ed25519.pub\r\n",
        "The key fingerprint is:\r\nSHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 dev@box\r\n",
        "The key fingerprint is: SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 dev@box\r\n",
    ],
    "vendor-names": [
        "$ pip install openai anthropic\r\n",
        "  /usr/lib/python3/site-packages/openai/_client.py:112\r\n",
        "ToolX plugin loaded from ~/.toolx/plugins\r\n",
    ],
    "colour-output": [
        "\x1b[1;34mdrwxr-xr-x\x1b[0m src \x1b[32mtests\x1b[0m \x1b[0;33mREADME.md\x1b[0m\r\n",
        "\x1b]0;dev@box: ~/repo\x07\x1b[?2004h$ \x1b[K\r\n",
    ],
    "unicode": [
        "Compilación terminada ✓ — 漢字 テスト\r\n",
        "naïve café key: résumé\r\n",
    ],
    "version-strings": [
        "key_version=2024-08-01.release-candidate\r\n",
        "TOKEN_LIMIT=128000 MAX_TOKENS=4096\r\n",
    ],
    "authorization-references": [
        'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com\r\n',
        'WWW-Authenticate: Basic realm="example"\r\n',
        "Bearer tokens are explained in RFC 6750.\r\n",
    ],
    "plain-cookies": [
        "Cookie: theme=dark; lang=en-GB\r\n",
        "Set-Cookie: consent=accepted; Path=/; Max-Age=31536000; SameSite=Lax\r\n",
    ],
    "p-flags": [
        "$ gcc -pthread -pedantic -pipe -o app main.c\r\n",
        "$ mysql -u root -p appdb\r\n",
        "$ mysql_config --cflags -pthread\r\n",
        "$ redis-cli -h cache ping\r\n",
        "$ mkdir -p /usr/local/share/app\r\n",
        "$ docker run -p 8080:80 nginx\r\n",
        "$ ssh -p 2222 dev@build-host\r\n",
        "$ psql -h localhost -p 5432 -U postgres\r\n",
        "$ app login --password-file /run/secrets/db_password\r\n",
        "$ app login --password $DB_PASSWORD\r\n",
        "$ app login --password --user bob\r\n",
    ],
    "password-look-alikes": [
        "PWD=/home/dev/project OLDPWD=/tmp\r\n",
        "tests pass: 12 fail: 0\r\n",
        "PASSWORD_FILE=/run/secrets/db_password\r\n",
        '    conn = connect(password=os.environ["DB_PASSWORD"])\r\n',
        "    def login(self, user: str, password: str) -> None:\r\n",
        "DB_PASSWORD=${DB_PASSWORD} PGPASSWORD=$DB_PASSWORD\r\n",
        "password: <your password here>\r\n",
    ],
    "url-look-alikes": [
        "ssh://git@example.org:22/r.git and git@example.org:r.git\r\n",
        "http://[::1]:8080/healthz\r\n",
        "postgres://app:${DB_PASSWORD}@db:5432/app\r\n",
    ],
    "aws-look-alikes": [
        "$ aws s3 ls s3://bucket/3f786850e387550fdab836ed7e6dc881de23001b/\r\n",
        "aws-cli/2.15.0 Python/3.11.6 Linux/6.1.0 exe/x86_64.debian.12\r\n",
    ],
}


def clean() -> list[Case]:
    """Look-alikes that are not secrets; no banner either, so nothing is changed."""
    return [
        Case(
            name,
            "cast" if number % 3 else "log",
            recording(["$ make\r\n", *texts]) if number % 3 else log(["$ make\r\n", *texts]),
            [],
        )
        for number, (name, texts) in enumerate(CLEAN.items())
    ]
