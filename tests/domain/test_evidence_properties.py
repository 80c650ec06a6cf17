"""Properties of the recording parser and of redaction over random recordings (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from domain.evidence.asciicast import parse, split_lines, timings, with_data
from domain.evidence.pipeline import Derivation, section_17
from tests.domain.test_evidence import chunks, shown, survivors
from tests.evidence_corpus import FORMS, TOKEN

times = st.one_of(
    st.integers(0, 10**6).map(str),
    st.floats(0, 1e6, allow_nan=False).map(repr),
    st.decimals(0, 10**4, places=6, allow_nan=False).map(str),
    st.sampled_from(["1e-3", "0.000100", "12.50", "3E2"]),
)
codes = st.sampled_from(["o", "o", "o", "i", "m", "r", "x"])
events = st.lists(st.tuples(times, codes, st.text()), max_size=30)
escapes = st.sampled_from(["\x1b[0m", "\x1b[1;31m", "\x1b[38;5;208m", "\x1b]0;title\x07", "\x1b7"])


def recording(version: int, items: list[tuple[str, str, str]], ascii_only: bool) -> bytes:
    lines = [json.dumps({"version": version, "width": 80, "height": 24})]
    lines += [
        f"[{t}, {json.dumps(c)}, {json.dumps(d, ensure_ascii=ascii_only)}]" for t, c, d in items
    ]
    return "".join(line + "\n" for line in lines).encode()


@given(st.sampled_from([2, 3]), events, st.booleans(), st.integers(1, 64))
def test_a_recording_parses_to_its_own_lines(
    version: int, items: list[tuple[str, str, str]], ascii_only: bool, size: int
) -> None:
    content = recording(version, items, ascii_only)
    _, first, blocks = parse(split_lines(chunks(content, size)))
    read = list(blocks)
    assert first + b"".join(line for block in read for line in block.lines) == content
    text_events = [(t, d) for t, c, d in items if c in "oi"]
    assert [d for block in read for d in block.texts] == [d for _, d in text_events]
    assert timings(chunks(content, size)) == [t.encode() for t, _, _ in items]


@given(times, codes, st.text(), st.text())
def test_replacing_the_data_keeps_the_time_as_written(
    time: str, code: str, data: str, new: str
) -> None:
    line = f"[{time}, {json.dumps(code)}, {json.dumps(data)}]\n".encode()
    replaced = with_data(line, new)
    assert json.loads(replaced) == [json.loads(time), code, new]
    assert replaced.startswith(f"[{time}, ".encode())


@st.composite
def planted_recordings(draw: st.DrawFn) -> tuple[bytes, str, str | None]:
    """A random recording with a secret printed in it: the run's own key (random) or one of
    the forms, cut into events at random points, escape sequences inside it at random."""
    use_model_key = draw(st.booleans())
    if use_model_key:
        secret = draw(st.text(alphabet=TOKEN, min_size=24, max_size=80))
        secret = "sk-" + secret if draw(st.booleans()) else secret
        line = draw(st.sampled_from(["key: {}", "{}", "Bearer {} sent", "--key={}"]))
        printed = line.format(secret)
    else:
        form = draw(st.sampled_from(sorted(FORMS)))
        plant = FORMS[form](random.Random(draw(st.integers())))
        printed, secret = plant.text, plant.secrets[0]
    cuts = sorted(draw(st.lists(st.integers(0, len(printed)), max_size=4)))
    pieces = [printed[a:b] for a, b in zip([0, *cuts], [*cuts, len(printed)], strict=True)]
    start = printed.index(secret)
    inside = draw(st.lists(st.tuples(st.integers(1, len(secret) - 1), escapes), max_size=3))
    for at, escape in sorted(inside, reverse=True):  # escape sequences inside the secret
        pieces = _insert(pieces, start + at, escape)
    before = draw(st.lists(st.text(alphabet=st.characters(codec="ascii")), max_size=3))
    after = draw(st.lists(st.text(max_size=40), max_size=3))
    assume(not survivors(secret, "\n".join(before + after)))  # the text around is not the secret
    texts = [*before, *pieces, *after]
    items = [(f"{0.1 * (n + 1):.3f}", "o", text) for n, text in enumerate(texts)]
    version = draw(st.sampled_from([2, 3]))
    return recording(version, items, draw(st.booleans())), secret, secret if use_model_key else None


def _insert(pieces: list[str], offset: int, text: str) -> list[str]:
    for n, piece in enumerate(pieces):
        if offset <= len(piece):
            return [*pieces[:n], piece[:offset] + text + piece[offset:], *pieces[n + 1 :]]
        offset -= len(piece)
    return pieces


@settings(max_examples=300)
@given(planted_recordings(), st.integers(1, 4096))
def test_a_planted_secret_never_leaks(planted: tuple[bytes, str, str | None], size: int) -> None:
    content, secret, model_key = planted
    derivation = Derivation(section_17([model_key] if model_key else [], []))
    served = b"".join(derivation.cast(chunks(content, size)))
    assert survivors(secret, shown("cast", served)) == []
    assert timings([served]) == timings([content])
