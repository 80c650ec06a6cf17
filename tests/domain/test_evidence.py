"""Section 17 on the corpus: every planted secret gone from every served copy, every clean file
byte for byte as it came, every recording still a recording with its timings, and every
transform's hashes chained from the raw file to the served copy."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator

import pytest

from domain.evidence.asciicast import RecordingError, parse, split_lines, timings
from domain.evidence.masking import ANSI, Masker, Stage, Withhold, mask_text
from domain.evidence.pipeline import SECTION_17, Derivation, section_17
from domain.evidence.redaction import MARKER, CredentialFinder
from tests.evidence_corpus import (
    BANNERS,
    PREAMBLE,
    TAIL,
    Case,
    Plant,
    _colour,
    _split,
    clean,
    planted,
    recording,
)

PLANTED, CLEAN = planted(), clean()
WINDOW = 12
"""No run of this many characters of a planted secret may survive."""


def chunks(content: bytes, size: int) -> Iterator[bytes]:
    return (content[i : i + size] for i in range(0, len(content), size))


def derive(case: Case, size: int = 1 << 20) -> tuple[bytes, Derivation]:
    derivation = Derivation(section_17([case.model_key] if case.model_key else [], BANNERS))
    stream = derivation.cast if case.kind == "cast" else derivation.log
    return b"".join(stream(chunks(case.content, size))), derivation


def shown(kind: str, served: bytes) -> str:
    """What a reader of the served copy sees: its header and the text of every event, joined
    (a secret cut across events is whole again here), without escape sequences."""
    if kind == "log":
        return ANSI.sub("", served.decode())
    _, first, blocks = parse(split_lines([served]))
    texts = [first.decode()] + [text for block in blocks for text in block.texts]
    return ANSI.sub("", "".join(texts))


def survivors(secret: str, text: str) -> list[str]:
    return [
        secret[i : i + WINDOW]
        for i in range(len(secret) - WINDOW + 1)
        if secret[i : i + WINDOW] in text
    ]


def test_the_corpus_is_large_enough() -> None:
    assert len(PLANTED) >= 60
    assert len(CLEAN) >= 20
    assert {c.name.rsplit("-", 1)[1] for c in PLANTED} >= {"whole", "split", "colour", "log"}


@pytest.mark.parametrize("case", PLANTED, ids=lambda c: c.name)
def test_no_planted_secret_survives(case: Case) -> None:
    assert all(survivors(secret, shown(case.kind, case.content)) for secret in case.secrets)
    served, derivation = derive(case)
    for secret in case.secrets:
        assert survivors(secret, shown(case.kind, served)) == []
        assert survivors(secret, served.decode()) == []
    assert sum(sum(a.counts.values()) for a in derivation.applied()[:2]) >= 1


@pytest.mark.parametrize("case", CLEAN, ids=lambda c: c.name)
def test_a_clean_file_is_served_byte_for_byte(case: Case) -> None:
    served, derivation = derive(case)
    assert served == case.content
    digest = hashlib.sha256(case.content).hexdigest()
    for applied in derivation.applied():
        assert (applied.input_sha256, applied.output_sha256, applied.counts) == (digest, digest, {})


@pytest.mark.parametrize("case", [c for c in PLANTED if c.kind == "cast"], ids=lambda c: c.name)
def test_every_served_recording_parses_and_keeps_its_timings(case: Case) -> None:
    served, _ = derive(case)
    assert timings([served]) == timings([case.content])
    original, after = served_events(case.content), served_events(served)
    assert [(time, code) for time, code, _ in after] == [(t, c) for t, c, _ in original]
    # every event stays, with its colours; what is masked became a marker (issue 26)
    assert [ANSI.findall(d) for *_, d in after] == [ANSI.findall(d) for *_, d in original]
    assert MARKER in shown("cast", served) or case.name.startswith("pem_private_key")


@pytest.mark.parametrize("placement", ["whole", "split", "colour"])
def test_a_mask_does_not_keep_the_secrets_length(placement: str) -> None:
    """Issue 26: a mask that kept each secret's length told a guesser how long it was; two
    secrets of different lengths give the same served copy, printed whole, cut across two
    events, or in colour."""
    served = set()
    for secret in ["sk-" + "Zx81kQ0pLm2nB7vC4xRt" * 2, "sk-" + "Zx81kQ0pLm2nB7vC4xRt" * 5]:
        plant = Plant(f"OPENAI_KEY used: {secret}\r\n", [secret])
        texts = {
            "whole": [plant.text],
            "split": _split(plant.text, secret),
            "colour": [_colour(plant.text, secret)],
        }[placement]
        case = Case(placement, "cast", recording([*PREAMBLE, *texts, *TAIL]), [secret])
        served.add(derive(case)[0])
        assert timings([derive(case)[0]]) == timings([case.content])
    assert len(served) == 1
    assert f"OPENAI_KEY used: {MARKER}" in shown("cast", served.pop())


def served_events(content: bytes) -> list[tuple[str, str, str]]:
    lines = content.decode().splitlines()[1:]
    events = [json.loads(line) for line in lines if line and not line.startswith("#")]
    return [(json.dumps(t), c, d) for t, c, d in events]


@pytest.mark.parametrize("case", PLANTED + CLEAN, ids=lambda c: c.name)
def test_each_transform_hashes_its_input_and_output(case: Case) -> None:
    served, derivation = derive(case)
    applied = derivation.applied()
    assert [a.transform for a in applied] == [
        "security-redaction",
        "generated-key-mask",
        "neutral-branding",
    ]
    assert applied[0].input_sha256 == hashlib.sha256(case.content).hexdigest()
    for before, after in itertools.pairwise(applied):
        assert after.input_sha256 == before.output_sha256
    assert applied[-1].output_sha256 == hashlib.sha256(served).hexdigest()


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_a_file_read_in_any_chunks_is_served_the_same(size: int) -> None:
    for case in PLANTED[::9] + CLEAN[::4]:
        assert derive(case, size)[0] == derive(case)[0], case.name


def test_a_log_keeps_bytes_that_are_not_utf8() -> None:
    content = b"caf\xe9 \xff\xfe ok\nghp_" + b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + b"\n"
    derivation = Derivation(section_17([], []))
    served = b"".join(derivation.log(chunks(content, 3)))
    assert served.startswith(b"caf\xe9 \xff\xfe ok\n")
    assert b"A1b2C3d4E5f6" not in served
    assert served == b"caf\xe9 \xff\xfe ok\n[REDACTED]\n"


@pytest.mark.parametrize("stray", ["\x1b", "\x1b("])
def test_a_stray_escape_before_a_keyword_does_not_hide_the_credential(stray: str) -> None:
    """A terminal drops `ESC C` (and `ESC ( C`) with the C and shows `ookie: ...sessionid=`
    and the value: the value is masked all the same (a case hypothesis found)."""
    value = "0UAqFzWsDK4FrUMp48Y3tT3QDgAL47D1"
    content = recording(["$ ls\r\n", stray, f"Cookie: theme=dark; sessionid={value}\r\n"])
    served = b"".join(Derivation(section_17([], [])).cast(chunks(content, 5)))
    assert survivors(value, shown("cast", served)) == []
    assert "theme=dark" in shown("cast", served)


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_an_escape_no_terminal_defines_before_a_command_does_not_hide_its_password(
    cut: int,
) -> None:
    """A terminal drops `ESC $ SP s` (intermediate bytes and a final one, but no sequence it
    defines) and shows `shpass -p` and the password; the file shows `sshpass -p`, and the
    password is masked, wherever the events cut the text (a case hypothesis found)."""
    password = "correcthorsebattery"
    printed = f"\x1b$ sshpass -p {password} ssh deploy@h\r\n"
    content = recording(["$ ls\r\n", printed[:cut], printed[cut:]])
    served = b"".join(Derivation(section_17([], [])).cast(chunks(content, 1)))
    assert survivors(password, shown("cast", served)) == []
    assert "ssh deploy@h" in shown("cast", served)


def test_the_counts_name_the_form_not_the_secret() -> None:
    by_name = {c.name: c for c in PLANTED}
    for name, kind in [
        ("github_classic-split", "github_token"),
        ("aws_configure-colour", "secret_assignment"),
        ("stripe-log", "stripe_key"),
        ("model-key-base64-1", "run_model_key"),
        ("model-key-url-encoded", "run_model_key"),
        ("url_credential-whole", "url_credential"),
    ]:
        redaction = derive(by_name[name])[1].applied()[0]
        assert redaction.counts == {kind: 1}, name
        assert all(s not in json.dumps(redaction.counts) for s in by_name[name].secrets)


def test_a_private_key_body_is_masked_and_its_lines_stay() -> None:
    case = next(c for c in PLANTED if c.name == "pem_private_key-split")
    served, derivation = derive(case)
    text = shown("cast", served)
    assert "-----BEGIN RSA PRIVATE KEY-----\r\n" in text
    assert "\r\n-----END RSA PRIVATE KEY-----" in text
    assert derivation.applied()[1].counts == {"private_key_body": 1}


def test_a_private_key_that_never_ends_withholds_the_file() -> None:
    content = b'{"version": 2}\n[1, "o", "-----BEGIN PRIVATE KEY-----\\r\\nMIIEvQIBADANBg"]\n'
    with pytest.raises(Withhold, match="END line never came"):
        b"".join(Derivation(section_17([], [])).cast([content]))


def test_the_banner_is_blanked_and_nothing_else() -> None:
    case = next(c for c in CLEAN if c.name == "vendor-names")
    banner = "Welcome to ToolX v2.3.1 (vendor build)\r\n"
    content = case.content.replace(b'"$ make\\r\\n"', json.dumps(banner).encode(), 1)
    served, derivation = derive(Case("banner", "cast", content, []))
    text = shown("cast", served)
    assert "Welcome" not in text
    assert " " * 30 in text
    assert "ToolX plugin loaded" in text
    assert "site-packages/openai" in text
    assert derivation.applied()[2].counts == {"banner": 1}


def test_a_recording_that_is_not_one_is_refused() -> None:
    for content, reason in [
        (b"not json\n", "first line"),
        (b'{"version": 1}\n', "version 1"),
        (b'{"version": 2}\n[1, "o", "ok"]\n# a comment is v3 only\n', "line 3"),
        (b'{"version": 3}\n["soon", "o", "ok"]\n', "line 2"),
    ]:
        with pytest.raises(RecordingError, match=reason):
            b"".join(Derivation(section_17([], [])).cast([content]))


def token(n: int) -> str:
    return f"ghp_{n:04d}aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"


@pytest.mark.parametrize("marker", [None, MARKER], ids=["in-place", "marker"])
def test_masking_across_pieces_equals_masking_the_whole_text(marker: str | None) -> None:
    """The settling point never cuts a span: small chunks give what one text gives."""
    text = "".join(
        f"line {n} \x1b[3{n % 7}m{token(n) if n % 5 == 0 else 'plain'}\x1b[0m\r\n"
        for n in range(400)
    )
    stages = [Stage(CredentialFinder(), marker=marker)]
    whole, counts = mask_text(stages, text)
    for size in (1, 5, 64):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        masker = Masker(stages, reach=200, chunk=300)
        settled = [masker.feed([p]) for p in pieces] + [masker.close()]
        assert [piece for s in settled for piece in s.pieces] == pieces  # each once, in order
        out = [s.edits[-1].get(i, piece) for s in settled for i, piece in enumerate(s.pieces)]
        assert "".join(out) == whole
        assert masker.counts == counts == [{"github_token": 80}]


def test_section_17_names_its_transforms_in_the_order_applied() -> None:
    assert [(t.name, t.version) for t in section_17([], [])] == list(SECTION_17)
