"""Issue 26, the credential forms an adversarial probe found served: passwords under the entropy
threshold in every argument and URL form, a bare AWS secret access key, the run's key in base64
and in hex; and the mask, which no longer keeps a secret's length. Each probe is named after the
form it plants; every one must come out masked, and every look-alike untouched."""

from __future__ import annotations

import base64
from collections import Counter

import pytest

from domain.evidence.masking import mask_text
from domain.evidence.pipeline import security_redaction

RUN_KEY = "sk-or-v1-" + "5f0c9a7e1d3b8264" * 4
"""The run's own key (a made-up one, in the provider's form)."""
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKE"
MARKER = "[REDACTED]"

PROBES: dict[str, tuple[str, str]] = {
    # name: (the text printed, the secret in it)
    "mysql-attached-p": ("$ mysql -u root -pAutumn2025 appdb\n", "Autumn2025"),
    "mysqldump-attached-p": ("$ mysqldump -u app -pSummer2024! db > d.sql\n", "Summer2024!"),
    "mysql-attached-quoted": ("$ mysql -h db -p'Summer 2024!' app\n", "Summer 2024!"),
    "password-option-equals": ("$ app login --password=Autumn2025\n", "Autumn2025"),
    "password-option-space": ("$ app login --password Autumn2025 --user bob\n", "Autumn2025"),
    "password-option-quoted": ("$ app --password 'Summer 2024!'\n", "Summer 2024!"),
    "passwd-option": ("$ tool --passwd=hunter2\n", "hunter2"),
    "pgpassword": ("PGPASSWORD=Autumn2025 psql -h db -U app\n", "Autumn2025"),
    "mysql-pwd": ("MYSQL_PWD=Summer2024! mysql -u app\n", "Summer2024!"),
    "db-pass": ("export DB_PASS=changeme\n", "changeme"),
    "password-json": ('{"user": "app", "password": "Autumn2025"}\n', "Autumn2025"),
    "password-yaml": ("  password: Autumn2025\n", "Autumn2025"),
    "secret-password": ("SECRET_PASSWORD=hunter2\n", "hunter2"),
    "connection-string": ("Server=db;User Id=app;Password=Autumn2025;\n", "Autumn2025"),
    "postgres-url": ("postgres://app:Autumn2025@db.internal:5432/app\n", "Autumn2025"),
    "url-password-with-at": ("mysql://app:p@ss2025@db/app\n", "p@ss2025"),
    "redis-url-no-user": ("redis://:Autumn2025@cache:6379/0\n", "Autumn2025"),
    "sshpass-space": ("$ sshpass -p Autumn2025 ssh deploy@host\n", "Autumn2025"),
    "sshpass-attached": ("$ sshpass -pSummer2024! scp a host:\n", "Summer2024!"),
    "redis-cli-a": ("$ redis-cli -h cache -a Autumn2025 ping\n", "Autumn2025"),
    "aws-csv-after-key-id": (f"ci,AKIAIOSFODNN7EXAMPLE,{AWS_SECRET}\n", AWS_SECRET),
    "aws-table-after-key-id": (f"| AKIAIOSFODNN7EXAMPLE | {AWS_SECRET} |\n", AWS_SECRET),
    "aws-echoed": (f"$ echo $AWS_SECRET_ACCESS_KEY\n{AWS_SECRET}\n", AWS_SECRET),
    "aws-json": (f'"SecretAccessKey": "{AWS_SECRET}",\n', AWS_SECRET),
}
KNOWN_KEY_PROBES: dict[str, str] = {
    "run-key-base64": base64.b64encode(RUN_KEY.encode()).decode(),
    "run-key-base64-newline": base64.b64encode((RUN_KEY + "\n").encode()).decode(),
    "run-key-base64-prefixed": base64.b64encode(f"KEY={RUN_KEY}".encode()).decode(),
    "run-key-base64url": base64.urlsafe_b64encode(b"u:" + RUN_KEY.encode()).decode(),
    "run-key-hex": RUN_KEY.encode().hex(),
    "run-key-hex-upper": RUN_KEY.encode().hex().upper(),
    "run-key-hex-newline": (RUN_KEY + "\n").encode().hex(),
}
LOOK_ALIKES = [
    "$ gcc -pthread -pedantic -pipe -o app main.c\n",
    "$ mysql -u root -p appdb\n",
    "$ ssh -p 2222 dev@host && docker run -p 8080:80 nginx\n",
    "PWD=/home/dev OLDPWD=/tmp\n",
    "tests pass: 12 fail: 0\n",
    "PASSWORD_FILE=/run/secrets/db_password\n",
    "DB_PASSWORD=${DB_PASSWORD} --password $DB_PASSWORD\n",
    '    conn = connect(password=os.environ["DB_PASSWORD"])\n',
    "    def login(self, user: str, password: str) -> None:\n",
    "ssh://git@example.org:22/r.git\n",
    "aws s3 cp s3://b/3f786850e387550fdab836ed7e6dc881de23001b/x .\n",
    "SECRET=secret API_KEY=changeme\n",
]


def redacted(text: str, *known: str) -> tuple[str, Counter[str]]:
    stages = [t.stage for t in security_redaction(list(known))]
    masked, counts = mask_text(stages, text)
    return masked, counts[0]


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_password_or_an_aws_secret_is_masked_whatever_its_entropy(name: str) -> None:
    text, secret = PROBES[name]
    masked, counts = redacted(text)
    assert secret not in masked, masked
    assert MARKER in masked
    assert sum(counts.values()) >= 1


@pytest.mark.parametrize("name", sorted(KNOWN_KEY_PROBES))
def test_the_runs_key_in_base64_or_hex_is_masked(name: str) -> None:
    encoded = KNOWN_KEY_PROBES[name]
    for text in (f"$ echo ... | encode\n{encoded}\n", f"data={encoded};"):
        masked, counts = redacted(text, RUN_KEY)
        assert counts == {"run_model_key": 1}, masked
        leftover = masked.replace(MARKER, " ")
        assert not any(encoded[i : i + 8] in leftover for i in range(len(encoded) - 8)), masked


def test_the_runs_key_in_wrapped_base64_is_masked_on_every_line() -> None:
    wrapped = base64.encodebytes((RUN_KEY + "\n").encode()).decode()  # 76 characters a line
    masked, _ = redacted(f"$ base64 key.txt\n{wrapped}", RUN_KEY)
    for line in wrapped.splitlines():
        assert line[:12] not in masked
        assert line[-16:-4] not in masked


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_is_left_as_it_is(text: str) -> None:
    assert redacted(text) == (text, Counter())


def test_the_mask_is_one_marker_whatever_the_length() -> None:
    short, _ = redacted("PGPASSWORD=abc psql\n")
    long, _ = redacted("PGPASSWORD=" + "abc" * 40 + " psql\n")
    assert short == long == f"PGPASSWORD={MARKER} psql\n"


def test_the_counts_name_each_password_form() -> None:
    names = {
        "mysql-attached-p": "client_password",
        "password-option-equals": "password_option",
        "pgpassword": "password_assignment",
        "postgres-url": "url_credential",
        "aws-csv-after-key-id": "aws_secret_access_key",
    }
    for probe, form in names.items():
        assert form in redacted(PROBES[probe][0])[1], probe
