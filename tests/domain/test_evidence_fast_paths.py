"""The fast paths of the derivation against the straightforward ones (hypothesis): a batch of
lines decoded at once against each line decoded on its own, and the stages' signs scanned once
(each stage then reading from the line of the first) against every stage's finder reading every
window whole."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.evidence.asciicast import (
    Block,
    RecordingError,
    _decoded,
    _event_or_none,
    parse,
    parse_chunks,
    split_lines,
)
from domain.evidence.masking import Masker, Stage, Withhold
from domain.evidence.pipeline import section_17
from tests.domain.test_evidence import chunks
from tests.evidence_corpus import BANNERS, MODEL_KEY

events = st.builds(
    lambda t, c, d: f"[{t}, {json.dumps(c)}, {json.dumps(d)}]",
    st.floats(0, 1e6, allow_nan=False).map(repr),
    st.sampled_from(["o", "i", "r"]),
    st.text(max_size=20),
)
odd_lines = st.sampled_from(
    [
        "",  # blank
        "# a comment",
        '[1, "o", "a"], [2, "o", "b"]',  # two events on one line
        '[3, "o"',  # an event cut across two lines
        '"c"]',
        '["x", "o", "a"]',  # a time that is not a number
        '[1, "o", 2]',
        '[1, "o", "a", "more"]',
        '[[1, "o", "a"]]',
        ' [1, "o", "padded"] ',
        "[1,",
        "]",
    ]
)
lines = st.lists(st.one_of(events, events, odd_lines), max_size=25)


@settings(max_examples=500)
@given(lines, st.sampled_from([2, 3]))
def test_a_batch_decodes_as_its_lines_do(texts: list[str], version: int) -> None:
    batch = [f"{text}\n".encode() for text in texts]
    if not batch:
        return
    events = _decoded(batch)
    if events is not None:  # then every line is one event, the one it decodes to alone
        each = [_event_or_none(line, n, version) for n, line in enumerate(batch)]
        assert [(e.event.time, e.event.code, e.event.data) for e in events] == each


Parsed = tuple[dict[str, Any], bytes, list[bytes], list[int], list[str]] | str


def _parsed(parser: Callable[[], tuple[dict[str, Any], bytes, Iterator[Block]]]) -> Parsed:
    """What the blocks hold, in order (they may be cut at other lines), or the error."""
    try:
        header, first, blocks = parser()
        read = list(blocks)
    except RecordingError as e:
        return str(e)
    return (
        header,
        first,
        [line for block in read for line in block.lines],
        [i for block in read for i in block.text_at],
        [text for block in read for text in block.texts],
    )


@given(lines, st.sampled_from([2, 3]), st.integers(1, 64), st.booleans())
def test_parsing_chunks_at_once_parses_as_line_by_line(
    texts: list[str], version: int, size: int, newline_at_end: bool
) -> None:
    content = "\n".join([json.dumps({"version": version}), *texts])
    content += "\n" if newline_at_end else ""
    pieces = list(chunks(content.encode(), size))
    assert _parsed(lambda: parse_chunks(pieces)) == _parsed(lambda: parse(split_lines(pieces)))


words = st.sampled_from(
    [
        "plain words ",
        "\r\n",
        "\x1b[31m",
        "\x1b[0m",
        "Welcome to ToolX v2.3.1\r\n",
        "-----BEGIN RSA PRIVATE KEY-----\r\n",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\r\n",
        "-----END RSA PRIVATE KEY-----\r\n",
        "password = hunter2hunter2\r\n",
        "token: Zx81kQ0pLm2nB7vC4xRt\r\n",
        "ghp_0123aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 ",
        MODEL_KEY[:30],
        MODEL_KEY[30:],
        "é✓ ",
        # Forms whose span begins after the sign, or runs on into the next piece.
        "Cookie: sid=Zx81kQ0pLm2nB7vC4xRt; theme=dark\r\n",
        "Authorization: Bearer Zx81kQ0p",
        "Lm2nB7vC4xRt\r\n",
        "mysql -p Zx81kQ0pLm2nB7 ",
        "git clone https://bob:Zx81kQ0pLm2nB7vC@example.org/r ",
        "export API_KEY=",
        "sk-proj-",
        "Zx81kQ0pLm2nB7vC4xRt",
    ]
)


def _masked(stages: list[Stage], pieces: list[str], reach: int, chunk: int) -> object:
    """Everything settled and counted, fed three pieces at a time, or why it was withheld."""
    masker = Masker(stages, reach=reach, chunk=chunk)
    try:
        settled = [masker.feed(pieces[i : i + 3]) for i in range(0, len(pieces), 3)]
        settled.append(masker.close())
    except Withhold as e:
        return e.reason
    return settled, masker.counts


@settings(max_examples=150, deadline=None)
@given(st.lists(words, max_size=120), st.integers(8, 200), st.integers(8, 400))
def test_the_signs_skip_only_what_the_finders_would_not_find(
    pieces: list[str], reach: int, chunk: int
) -> None:
    stages = [t.stage for t in section_17([MODEL_KEY], BANNERS)]
    unsigned = [stage._replace(sign=None) for stage in stages]
    assert _masked(stages, pieces, reach, chunk) == _masked(unsigned, pieces, reach, chunk)


def test_every_stage_of_section_17_has_a_sign() -> None:
    assert all(t.stage.sign for t in section_17([MODEL_KEY], BANNERS))
