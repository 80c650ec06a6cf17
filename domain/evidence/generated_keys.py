"""Generated key material (methodology section 17, from v1.2): the body of any private key the
project printed is masked in the served copy; the raw file stays archived, by fingerprint."""

from __future__ import annotations

import re

from domain.evidence.masking import Found, Span

NAME, VERSION = "generated-key-mask", 2

BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----")
MARKER = "[PRIVATE KEY MASKED]"
"""What each line of a private key's body becomes, whatever its length."""
OPEN_REASON = "a private key body that cannot be shown masked (its END line never came)"


def find_key_bodies(text: str) -> Found:
    """Each private key block: its body, between the BEGIN and END lines, is the span; the
    BEGIN and END lines stay, so the page can say a key was there and masked."""
    spans: list[Span] = []
    position = 0
    while begin := BEGIN.search(text, position):
        end_line = f"-----END {begin.group(1)}PRIVATE KEY{begin.group(2) or ''}-----"
        end = text.find(end_line, begin.end())
        if end < 0:
            return Found(spans, begin.start())
        spans.append(Span(begin.end(), end, "private_key_body"))
        position = end + len(end_line)
    return Found(spans, None)


def find_key_bodies_in_a_text(text: str) -> Found:
    """Section 17, a text read whole (a report, not a stream): a body whose END line never
    comes runs to the end of the text, and is masked all the same (nothing more will come)."""
    found = find_key_bodies(text)
    if found.open_from is None:
        return found
    begin = BEGIN.match(text, found.open_from)
    assert begin is not None  # open_from is where a BEGIN line matched
    return Found([*found.spans, Span(begin.end(), len(text), "private_key_body")], None)
