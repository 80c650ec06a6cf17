"""SI-IQ on the real data of reference/data, end to end, and docs/siiq-real-data.md from
`argusic siiq report`: the sources are served from a local HTTP server (127.0.0.1) at the
addresses a sources.toml names, fetched into a fresh ledger (Epoch AI's January 2026 export
first, then April's, as two hourly rounds would see them; BFCL's tables; OpenRouter's GPQA
Diamond run, of which no real export is at hand, from the tests' fixture, served and labelled
as one), the first calibration is run by `siiq update`, and the report is written, dated, with
the reference members still missing and a diagnostic run after it.

    python scripts/siiq_real_data.py [--out docs/siiq-real-data.md]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.clock import utc_now
from adapters.crosscheck import ChatCrossChecker, CrossCheckStandIn
from adapters.sources.config import SourcesConfig
from api.http import site_check
from api.services.queries import SiiqQueries
from api.services.siiq_report import FITTED, reference_members, report_markdown, siiq_report
from api.services.siiq_update import update_siiq
from api.services.sources import SourcesQueries, fetch_sources
from api.wiring import Argusic, Settings, init
from domain.siiq.data import Observations, select
from domain.siiq.index import build_index, run_calibration
from domain.siiq.matching import DATES, EPOCH, name_key, run_setting_removed, without_namespace
from tests.reference import DATA, EPOCH_APR, EPOCH_JAN
from tests.sources_server import epoch_zip, openrouter_benchmarks_fixture, serving

ROOT = Path(__file__).resolve().parents[1]
SERVED = {
    "aider": ["aider/polyglot_leaderboard.yml"],
    "bfcl": [
        "bfcl/data_overall.csv",
        "bfcl/data_non_live.csv",
        "bfcl/data_live.csv",
        "bfcl/data_multi_turn.csv",
        "bfcl/data_agentic.csv",
    ],
    "arena": ["lmarena/leaderboard-text.json"],
    "litellm": ["litellm/model_prices_and_context_window.json"],
}


def evidence_files(argusic: Argusic) -> list[str]:
    """/data/evidence.jsonl as published by the update, by the file each line's row came from
    (section 8: every input row with its own file's address and SHA-256)."""
    lines = [
        msgspec.json.decode(line) for line in SiiqQueries(argusic.ledger).evidence().splitlines()
    ]
    count = Counter((x["source"], x["url"], x["sha256"]) for x in lines)
    out = [
        "## /data/evidence.jsonl by file",
        "",
        f"{len(lines)} lines, each naming the file its row was read from:",
        "",
        "| source | address | SHA-256 | lines |",
        "|---|---|---|---:|",
    ]
    out += [f"| {s} | {u} | `{h}` | {n} |" for (s, u, h), n in sorted(count.items())]
    return [*out, ""]


def missing(argusic: Argusic) -> list[str]:
    """Every reference member outside the fitted set, with the reason, and the waiting names
    with the member's words once dates and an instruction-tuned "it" are left out: candidates a
    maintainer may confirm with `approve_alias` (section 1 matches exactly, so none of them
    counts until then)."""
    intake = SourcesQueries(argusic.ledger).intake()
    assert intake is not None
    epoch_only = msgspec.structs.replace(
        intake,
        results=[
            r for r, e in zip(intake.results, intake.evidence, strict=True) if e.source == EPOCH
        ],
    )
    before = {m.member for m in reference_members(epoch_only) if m.status != FITTED}
    members = reference_members(intake)
    now = {m.member for m in members if m.status != FITTED}
    out = [
        "## Reference members still missing",
        "",
        f"With Epoch AI's tables alone {len(before)} of the {len(members)} members are outside "
        "the fitted set; the other sources' rows bring in "
        + (", ".join(sorted(before - now, key=str.casefold)) or "none")
        + f"; {len(now)} stay outside:",
        "",
    ]
    stuck: list[str] = []
    for member in members:
        if member.status == FITTED:
            continue
        candidates = [
            f"{m.source} `{m.name}`"
            for m in intake.waiting
            if _words(run_setting_removed(without_namespace(m.name))) == _words(member.member)
        ]
        counted = f" ({member.results}: {', '.join(member.benchmarks)})" if member.results else ""
        hint = (
            "; waiting for a maintainer's `approve_alias`: " + ", ".join(candidates)
            if candidates
            else "; no other name for it in the sources read"
        )
        out.append(f"- {member.member}: {member.status}{counted}{hint}")
        if not candidates:
            stuck.append(member.member)
    if stuck:
        out += [
            "",
            f"No waiting name in the sources read carries the words of {', '.join(stuck)}, so "
            "approving the aliases above would still leave the calibration rejected (section 3: "
            "a frozen reference member missing from the fitted set).",
        ]
    return [*out, ""]


def _words(name: str) -> list[str]:
    return [w for w in name_key(DATES.sub(" ", name)).split() if w != "it"]


def diagnostic(argusic: Argusic) -> list[str]:
    """The same calibration with the reference group reduced to its members in the fitted set:
    not an index (section 3 forbids it), a view of what the data gives."""
    intake = SourcesQueries(argusic.ledger).intake()
    assert intake is not None
    selection = select(intake.results, intake.benchmarks)
    obs = Observations.build(selection.results, selection.benchmarks)
    present = [m.member for m in reference_members(intake) if m.status == FITTED]
    reduced = run_calibration(obs, intake.benchmarks, set(selection.invalid_benchmarks), present)
    out = [
        "## A diagnostic run, not an index",
        "",
        "The same calibration with the reference group reduced to its "
        f"{len(present)} members in the fitted set: "
        + (
            f"accepted, kappa = {reduced.kappa:.4f}, {len(reduced.fitted_models)} models fitted."
            if reduced.accepted
            else f"rejected: {reduced.reason}."
        ),
        "",
    ]
    if reduced.accepted:
        document = build_index(selection.results, reduced)
        out += ["| rank | model | SI-IQ | 90% interval |", "|---:|---|---:|---|"]
        out += [
            f"| {m.rank} | {m.slug} | {m.si_iq} | {m.si_iq_low} to {m.si_iq_high} |"
            for m in document.models
            if m.ranked and (m.rank or 0) <= 20
        ]
    return [*out, ""]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "siiq-real-data.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serving() as server:
        settings = Settings(f"sqlite:///{tmp}/ledger.db", Path(tmp) / "home", "json")
        ledger, _ = init(settings)
        argusic = Argusic(settings, ledger)
        server.put("epoch/benchmark_data.zip", epoch_zip(EPOCH_JAN))
        sources = {"epoch": [server.url("epoch/benchmark_data.zip")]}
        for name, paths in SERVED.items():
            sources[name] = [server.put(p, (DATA / p).read_bytes()) for p in paths]
        sources["openrouter"] = [openrouter_benchmarks_fixture(server)]
        config = SourcesConfig(sources)
        for export in (EPOCH_JAN, EPOCH_APR):
            server.change("epoch/benchmark_data.zip", epoch_zip(export))
            with argusic.source_reader(config) as reader:
                fetch_sources(ledger, reader, config.sources)
        # Section 8's cross-check through the stand-in (the real data's rows carry their numbers).
        stand_in = CrossCheckStandIn().start()
        with ChatCrossChecker(stand_in.url, "stand-in", "", "Checker Lab") as checker:
            update_siiq(ledger, checker, utc_now(), site_check(argusic))
        stand_in.stop()
        report = report_markdown(siiq_report(ledger, utc_now().date()))
        lines = [
            report.rstrip(),
            "",
            "Produced by `python scripts/siiq_real_data.py`: the files of `reference/data` served",
            "from 127.0.0.1 (Epoch AI's exports of January and April 2026, Aider, BFCL, Arena,",
            "LiteLLM), fetched by `argusic sources fetch`, calibrated by `argusic siiq update`.",
            "OpenRouter's rows (`openrouter_gpqa_diamond`) are NOT real data: no export of its",
            "`benchmarks` dataset is at hand, so they are the tests' fixture",
            "(`tests/fixtures/openrouter/`), served under `/fixture/openrouter/`; they give",
            "results only to members that Epoch's tables already put in the fitted set.",
            "",
            *evidence_files(argusic),
            *missing(argusic),
            *diagnostic(argusic),
        ]
        argusic.close()
    args.out.write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
