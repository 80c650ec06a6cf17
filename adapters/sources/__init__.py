"""Source adapters of SI-IQ (sections 8 and 10): one module per source format, each turning a
file's bytes into tables of rows as published, or failing with a named
`domain.siiq.source_format.SourceFormatError`."""

from __future__ import annotations

from collections.abc import Callable

from adapters.sources import aider, arena, bfcl, epoch, litellm, openrouter
from domain.siiq.source_format import Table

Parser = Callable[[str, bytes], list[Table]]

PARSERS: dict[str, Parser] = {
    "epoch": epoch.parse,
    "aider": aider.parse,
    "bfcl": bfcl.parse,
    "arena": arena.parse,
    "litellm": litellm.parse,
    "openrouter": openrouter.parse,
}
"""The parser of each configured source, by the name of its table in `sources.toml`."""
