"""Which model a source's name is (SI-IQ section 1, "Qué modelo"): models are Epoch AI's model
groups; other sources' names are matched to them exactly, only when version numbers and
product words agree; names that cannot be matched with certainty wait, never ranked, until a
maintainer confirms them (a signed `approve_alias`).

Every function is pure: the exports, the names and the approved aliases are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date

import msgspec

from domain.siiq.selection import product_words, same_product, without_run_setting

EPOCH = "epoch"
MONTH_YEAR = r"\((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4}\)"
DATES = re.compile(
    "|".join(
        (
            MONTH_YEAR,  # a group's "(Mar 2025)"
            r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)",  # 2025-08-07
            r"(?<![\d.])\d{2}-\d{2}(?![\d.])",  # preview-06-05
            r"(?<![\d.])(?:\d{8}|\d{6}|\d{4})(?![\d.])",  # 20250514, 0324, 2507
        )
    ),
    re.I,
)
NUMBER = re.compile(r"\d+")
SEPARATORS = re.compile(r"[\s_\-]+")


class Alias(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A maintainer's confirmation or correction of a match (the signed `approve_alias` action):
    `name` of `source` is the model group `group`; an empty `group` says it is none of them."""

    source: str
    name: str
    group: str
    justification: str


class Version(msgspec.Struct, frozen=True, kw_only=True):
    """One Epoch AI model version as an export lists it: its group and release date."""

    version: str
    group: str
    released: date | None


class Match(msgspec.Struct, frozen=True, kw_only=True):
    """A source's name and the model group it is, or why it waits (`group` None)."""

    source: str
    name: str
    group: str | None
    reason: str


def trimmed(name: object) -> str:
    """SI-IQ section 1: surrounding whitespace (spaces, a line break) in a name cell is not part
    of the name: Epoch's "GPT-5.3 Codex\\n" is the group "GPT-5.3 Codex"."""
    return str(name or "").strip()


def version_numbers(name: str) -> tuple[int, ...]:
    """SI-IQ section 1: the version numbers a name carries, dates left out ("claude-3-7-sonnet-
    20250219" and "Claude 3.7 Sonnet" both carry 3, 7; "DeepSeek-V3-0324" and "DeepSeek-V3
    (Mar 2025)" both carry 3)."""
    return tuple(int(n) for n in NUMBER.findall(DATES.sub(" ", name)))


def versions_and_products_agree(name: str, group: str) -> bool:
    """SI-IQ section 1: another source's name is matched to a group only when its version
    numbers and its product words (mini, pro, VL, ...) are the group's."""
    return version_numbers(name) == version_numbers(group) and same_product(name, group)


def name_key(name: str) -> str:
    """An exact comparison of names that ignores only letter case and the spelling of
    separators (a space, a hyphen, an underscore): "Qwen3 32B" is "Qwen3-32B"."""
    return SEPARATORS.sub(" ", trimmed(name).casefold()).strip()


def run_setting_removed(name: str) -> str:
    """SI-IQ section 1: other sources' names match after an explicit run-setting suffix such as
    "(high)" is removed ("gpt-5 (high)" is the name "gpt-5")."""
    return without_run_setting(trimmed(name))


def without_namespace(name: str) -> str:
    """An OpenRouter permaslug's author ("openai/gpt-5-2025-08-07") names the developer, not
    the model: the name is what follows the last slash."""
    return name.rsplit("/", 1)[-1]


def epoch_versions(rows: Iterable[Mapping[str, object]], columns: Sequence[str]) -> list[Version]:
    """The versions of one Epoch export's groups table (`Model version`, `Model name`, `Release
    date`), names trimmed; a version without a group is listed with group ""."""
    version_column, group_column, released_column = columns
    found: dict[str, Version] = {}
    for row in rows:
        version = trimmed(row.get(version_column))
        if version and version not in found:
            found[version] = Version(
                version=version,
                group=trimmed(row.get(group_column)),
                released=release_date(row.get(released_column)),
            )
    return list(found.values())


def pinned_reference_versions(
    exports: Sequence[Sequence[Version]], reference: Iterable[str]
) -> dict[str, set[str]]:
    """SI-IQ sections 1 and 4: a frozen reference-group name that the newest export no longer
    uses as a group is pinned to the versions of the newest export in which it was one (the
    Apr-2026 export merged "Qwen3-235B-A22B-Thinking (Jul 2025)" into "Qwen3-235B-A22B (Jul
    2025)"; they stay two models). `exports` oldest first; the last is the newest."""
    return {name: versions for name, (versions, _) in _pins(exports, reference).items()}


def _pins(
    exports: Sequence[Sequence[Version]], reference: Iterable[str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Per pinned name, its versions and every version of the export it was pinned from."""
    if not exports:
        return {}
    newest_groups = {v.group for v in exports[-1]}
    pins: dict[str, tuple[set[str], set[str]]] = {}
    for name in reference:
        if name in newest_groups:
            continue
        for export in reversed(exports[:-1]):
            versions = {v.version for v in export if v.group == name}
            if versions:
                pins[name] = (versions, {v.version for v in export})
                break
    return pins


def epoch_groups(
    exports: Sequence[Sequence[Version]], reference: Iterable[str], aliases: Iterable[Alias]
) -> dict[str, Match]:
    """SI-IQ section 1: the model group of every version of the newest Epoch export, or why it
    waits: no group; a product type other than its group's; a reference name's pinned versions
    left its group, and a version that group has gained since the pinning export cannot be told
    apart. An approved alias (source "epoch") decides its version whatever the export says."""
    if not exports:
        return {}
    newest = exports[-1]
    pins = _pins(exports, reference)
    pinned_to = {version: name for name, (versions, _) in pins.items() for version in versions}
    absorbing = {v.group for v in newest if v.version in pinned_to}
    known = set().union(*(listed for _, listed in pins.values()))
    matches = {}
    for v in newest:
        if v.version in pinned_to:
            pinned = Version(version=v.version, group=pinned_to[v.version], released=v.released)
            matches[v.version] = _epoch_group(pinned, "pinned reference name")
        elif v.group in absorbing and v.version not in known:
            why = (
                f"new in {v.group}, which absorbed a pinned reference name: waits for a maintainer"
            )
            matches[v.version] = _epoch(v.version, None, why)
        else:
            matches[v.version] = _epoch_group(v, "Epoch AI model group")
    for alias in latest_aliases(aliases, EPOCH).values():
        matches[alias.name] = _aliased(alias)
    return matches


def _epoch_group(v: Version, reason: str) -> Match:
    """SI-IQ section 1: a version counts for its group only when their product types agree (a
    "VL", "Mini" or "Pro" version filed under another group waits)."""
    if not v.group:
        return _epoch(v.version, None, "Epoch AI places the version in no model group")
    base = epoch_run_setting_removed(v.version)
    if not same_product(base, v.group):
        words = ", ".join(sorted(product_words(base) ^ product_words(v.group)))
        return _epoch(v.version, None, f"product words differ from its group {v.group} ({words})")
    return _epoch(v.version, v.group, reason)


def _epoch(version: str, group: str | None, reason: str) -> Match:
    return Match(source=EPOCH, name=version, group=group, reason=reason)


def epoch_run_setting_removed(version: str) -> str:
    """Epoch AI writes a version's run setting after an underscore ("gpt-5-2025-08-07_high",
    "claude-opus-4-6_max"): the setting is not part of the product's name."""
    return version.rsplit("_", 1)[0]


def latest_aliases(aliases: Iterable[Alias], source: str) -> dict[str, Alias]:
    """SI-IQ section 8: a name re-matched to another model drops its old mapping at once: the
    latest approved alias of each (source, name) is the only one that counts."""
    latest: dict[str, Alias] = {}
    for alias in aliases:
        if alias.source == source:
            latest[trimmed(alias.name)] = alias
    return latest


def _aliased(alias: Alias) -> Match:
    group = trimmed(alias.group) or None
    reason = f"approved by a maintainer: {alias.justification}"
    return Match(source=alias.source, name=trimmed(alias.name), group=group, reason=reason)


def other_source_names(
    source: str, names: Iterable[str], groups: Mapping[str, Match], aliases: Iterable[Alias]
) -> dict[str, Match]:
    """SI-IQ section 1: another source's names matched to Epoch groups: exactly (letter case and
    separators aside) to a group's name or to one of its versions, after an explicit run setting
    is removed, and only when version numbers and product words agree with the group; a name
    that matches nothing, or several groups, waits until a maintainer confirms it. A name
    with an author ("qwen/...") that matches nothing is tried without it."""
    catalogue = name_catalogue(groups)
    approved = latest_aliases(aliases, source)
    found: dict[str, Match] = {}
    for raw in names:
        name = trimmed(raw)
        if not name or name in found:
            continue
        if name in approved:
            found[name] = _aliased(approved[name])
            continue
        bare = run_setting_removed(name)
        candidates = catalogue.get(name_key(bare), set())
        if not candidates and "/" in bare:
            bare = without_namespace(bare)
            candidates = catalogue.get(name_key(bare), set())
        found[name] = _other(source, name, bare, candidates)
    return found


def _other(source: str, name: str, bare: str, candidates: set[str]) -> Match:
    if not candidates:
        return Match(
            source=source, name=name, group=None, reason="no Epoch group or version of that name"
        )
    if len(candidates) > 1:
        listed = ", ".join(sorted(candidates))
        return Match(source=source, name=name, group=None, reason=f"several groups ({listed})")
    group = next(iter(candidates))
    if not versions_and_products_agree(bare, group):
        why = f"version numbers or product words differ from {group}"
        return Match(source=source, name=name, group=None, reason=why)
    return Match(source=source, name=name, group=group, reason="exact name")


def name_catalogue(groups: Mapping[str, Match]) -> dict[str, set[str]]:
    """Every name another source may use for a group: the group's name and the names of its
    versions (an Epoch run setting such as "_high" removed), compared by `name_key`."""
    catalogue: dict[str, set[str]] = {}
    for version, match in groups.items():
        if match.group is None:
            continue
        for name in (match.group, version, epoch_run_setting_removed(version)):
            catalogue.setdefault(name_key(name), set()).add(match.group)
    return catalogue


def release_date(text: object) -> date | None:
    """A release date cell (`YYYY-MM-DD`); None when blank or unreadable."""
    try:
        return date.fromisoformat(trimmed(text))
    except ValueError:
        return None
