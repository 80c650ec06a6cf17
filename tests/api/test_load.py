"""A bounded load (issue 16, item 5) on SQLite and PostgreSQL: loopback clients send a fixed
number of leaderboard, run, evidence, proof and SI-IQ status requests to a real `argusic serve`
over the demo ledger while an ingest appends runs in batches and an operator publishes after
each ingest. Every answer is a 200 and consistent with one published position: one the operator
approved, holding exactly the runs ingested before that approval, each with its evidence, and
answered the same when asked as of that position afterwards. `scripts/bench_load.py` runs it
larger."""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import random
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from api.services.ingest import ingest
from api.services.operators import ActionDesk
from api.wiring import Argusic, Settings, open_ledger
from ledger.ledger import Ledger
from ledger.merkle import root_from_inclusion
from tests.conftest import DEMO, load_bundled_demo
from tests.publishing import action_desk, publish
from tests.servers import serving

CYCLE = "2026-10"
"""The demo's open cycle: its agents and public projects take the load's runs."""
AGENTS = ["demo-agent-a", "demo-agent-b", "demo-agent-c"]
PROJECTS = ["demo/pixel-forge", "demo/night-owl"]
KINDS = ["leaderboard", "run", "evidence", "proof", "status"]


class Publications:
    """What the operator approved, in order: each position and the load's runs it holds. The
    writer adds; the clients read the latest, which the server shows from then on."""

    def __init__(self, asked: int = 16) -> None:
        self.asked = asked
        self.cycle = CYCLE
        """The cycle whose leaderboard the clients read: the writer's."""
        self.positions: list[int] = []
        self.runs: dict[int, frozenset[str]] = {}
        self.sample: dict[int, list[str]] = {}

    def add(self, position: int, runs: frozenset[str]) -> None:
        self.runs[position] = runs
        ordered = sorted(runs)
        self.sample[position] = ordered[:: max(1, len(ordered) // self.asked)]
        self.positions.append(position)  # last: a reader finds the rest filled in

    def latest(self) -> tuple[int, list[str]]:
        """The latest position and the runs to ask for: about `asked` of them, spread over
        every ingest, as readers crowd the same pages."""
        position = self.positions[-1]
        return position, self.sample[position]


class Writer:
    """Ingests files of runs into the open cycle (each file more than one batch) and approves
    the head after each, as an operator would."""

    def __init__(self, settings: Settings, folder: Path, runs: int) -> None:
        self.settings, self.folder, self.runs = settings, folder, runs
        self.publications = Publications()
        self.ingested: frozenset[str] = frozenset()
        self.desk: ActionDesk | None = None
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("pass_full.log", "pass_full.cast"):
            shutil.copy(DEMO / "evidence" / name, folder / name)
        cycle = next(
            json.loads(line)
            for line in (DEMO / "06-cycles.jsonl").read_text().splitlines()
            if json.loads(line)["id"] == CYCLE
        )
        projects = {p["id"]: p for p in cycle["projects"]}
        self.pool: list[dict[str, Any]] = [projects[p] for p in PROJECTS]
        self.roster = AGENTS
        template = json.loads((DEMO / "80-runs.jsonl").read_text().splitlines()[0])
        self.template = template | {"evidence": {"log": "pass_full.log", "cast": "pass_full.cast"}}

    def record(self, run_id: str, n: int) -> dict[str, Any]:
        project = self.pool[n % len(self.pool)]
        agent = {"id": self.roster[n // len(self.pool) % len(self.roster)]}
        fields = {"run_id": run_id, "project": project, "agent": agent}
        return self.template | fields | {"cycle": self.publications.cycle}

    def round(self, ledger: Ledger, number: int) -> tuple[int, list[str]]:
        """Ingest number `number`, of `runs` new runs, then its approval; the position
        approved and the runs."""
        ids = [f"load-{number:03d}-{n:04d}" for n in range(self.runs)]
        path = self.folder / f"round-{number}.jsonl"
        path.write_text("".join(json.dumps(self.record(i, n)) + "\n" for n, i in enumerate(ids)))
        desk = self._desk(ledger)
        ingest(ledger, [path], Argusic(self.settings, ledger).store, reader=desk.reader)
        return publish(ledger, self.settings.home, desk), ids

    def _desk(self, ledger: Ledger) -> ActionDesk:
        """One desk per ledger connection, kept from round to round as an operator's server keeps
        its state, its reader also the ingests': fresh ones would decode the stored read model
        at every ingest and approval (175 MB at 100,000 runs)."""
        if self.desk is None or self.desk.ledger is not ledger:
            self.desk = action_desk(ledger)
        return self.desk

    def published(self, position: int, ids: list[str]) -> None:
        self.ingested |= frozenset(ids)
        self.publications.add(position, self.ingested)

    @contextmanager
    def running(self, rounds: int, every: float = 0) -> Iterator[BaseProcess]:
        """Rounds in a process of its own (forked: the clients' timings share no interpreter
        with it), each publication sent back as it is made, up to `rounds` or until the block
        ends, a round begun at most every `every` seconds (back to back by default); the block
        is given that process."""
        fork = multiprocessing.get_context("fork")
        received, sent = fork.Pipe(duplex=False)
        done = fork.Event()
        child = fork.Process(target=self._rounds, args=(rounds, every, done, sent))
        child.start()
        sent.close()
        listener = threading.Thread(target=self._listen, args=(received,))
        listener.start()
        try:
            yield child
        finally:
            done.set()
            child.join()
            listener.join()
        assert child.exitcode == 0, "the writer failed (its traceback is on stderr)"

    def _rounds(self, rounds: int, every: float, done: Any, sent: Connection) -> None:
        ledger = open_ledger(self.settings)  # the parent's connections stay the parent's
        first = len(self.publications.positions) + 1
        for number in range(first, first + rounds):
            begun = time.monotonic()
            if done.is_set():
                break
            sent.send(self.round(ledger, number))
            done.wait(begun + every - time.monotonic())  # no rounds made up after a pause

    def _listen(self, received: Connection) -> None:
        while True:
            try:
                position, ids = received.recv()
            except EOFError:
                return
            self.published(position, ids)


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    path: str
    known: int
    """The latest publication the client knew of when it asked."""
    status: int
    seconds: float
    body: bytes
    headers: dict[str, str]


def request(kind: str, known: int, runs: list[str], rng: random.Random, cycle: str) -> str:
    run_id = rng.choice(runs)
    match kind:
        case "healthz":
            return "/healthz"
        case "leaderboard":
            return f"/leaderboard?cycle={cycle}"
        case "status":
            return "/status.json"
        case "run":
            return f"/runs/{run_id}"
        case "evidence":
            return f"/runs/{run_id}/evidence/{rng.choice(['log', 'cast'])}"
    return f"/ledger/proof/inclusion?position={rng.randint(1, known)}&size={known}"


async def client(
    origin: str,
    count: int,
    kinds: list[str],
    publications: Publications,
    *,
    deadline: float,
    seed: int,
) -> list[Answer]:
    """Up to `count` requests on one kept-alive connection, the kinds in turn, back to back,
    until `deadline` (a `time.perf_counter()`)."""
    rng = random.Random(seed)
    answers = []
    async with httpx.AsyncClient(base_url=origin, timeout=60) as http:
        for n in range(count):
            if time.perf_counter() > deadline:
                break
            kind = kinds[n % len(kinds)]
            known, runs = publications.latest()
            path = request(kind, known, runs, rng, publications.cycle)
            started = time.perf_counter()
            response = await http.get(path)
            answers.append(
                Answer(
                    kind=kind,
                    path=path,
                    known=known,
                    status=response.status_code,
                    seconds=time.perf_counter() - started,
                    body=response.content,
                    headers=dict(response.headers),
                )
            )
    return answers


def mixed_load(
    origin: str,
    publications: Publications,
    requests: int,
    clients: int,
    *,
    kinds: list[str] = KINDS,
    seconds: float = 60,
) -> list[Answer]:
    """`requests` in all from `clients` concurrent clients, the kinds mixed, stopped after
    `seconds` if not done; every answer, in no set order."""
    deadline = time.perf_counter() + seconds

    async def together() -> list[list[Answer]]:
        return await asyncio.gather(
            *(
                client(
                    origin,
                    requests // clients,
                    kinds[c % len(kinds) :] + kinds[: c % len(kinds)],
                    publications,
                    deadline=deadline,
                    seed=c,
                )
                for c in range(clients)
            )
        )

    return [a for answers in asyncio.run(together()) for a in answers]


def summary(answers: list[Answer], seconds: float) -> dict[str, float]:
    """Requests answered, per second, and the median and 99th percentile latencies."""
    latencies = sorted(a.seconds for a in answers)
    return {
        "requests": len(answers),
        "requests_per_second": round(len(answers) / seconds, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
    }


def ours(run_ids: list[str]) -> set[str]:
    return {r for r in run_ids if r.startswith("load-")}


def leaderboard_runs(document: dict[str, Any]) -> set[str]:
    return ours([r for row in document["rows"] for p in row["projects"] for r in p["runs"]])


def inconsistencies(answers: list[Answer], publications: Publications, origin: str) -> list[str]:
    """Every answer that is not a 200 consistent with one published position, named; the
    leaderboards are also compared with the same read as of their position, asked now."""
    roots: dict[int, str] = {}
    later: dict[tuple[str, int], Any] = {}
    with httpx.Client(base_url=origin, timeout=60) as http:
        for position in publications.positions:  # in order: each read folds on the one before
            roots[position] = http.get(f"/ledger/checkpoint?size={position}").json()["root"]
            params = {"cycle": CYCLE, "as_of": position}
            later["leaderboard", position] = http.get("/leaderboard", params=params).json()
            later["status", position] = http.get("/status.json", params={"as_of": position}).json()
    found = []
    for a in answers:
        if a.status != 200:
            found.append(f"{a.path}: {a.status} {a.body[:200]!r}")
        elif a.kind == "evidence":
            if a.headers["x-argusic-served-sha256"] != hashlib.sha256(a.body).hexdigest():
                found.append(f"{a.path}: the body is not the served copy it names")
        elif a.kind == "proof":
            proof = json.loads(a.body)
            leaf, path = bytes.fromhex(proof["leaf_hash"]), map(bytes.fromhex, proof["path"])
            root = root_from_inclusion(proof["position"] - 1, a.known, leaf, list(path))
            if root.hex() != roots[a.known]:
                found.append(f"{a.path}: the path does not lead to the checkpoint's root")
        else:
            found += [f"{a.path}: {p}" for p in unpublished(a, publications, later)]
    return found


def without_approval(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "approved"}


def unpublished(
    a: Answer, publications: Publications, later: dict[tuple[str, int], Any]
) -> list[str]:
    """What in a leaderboard, a run page or SI-IQ's status is not as one published position
    holds it."""
    document = json.loads(a.body)
    position = document["as_of"]
    if position not in publications.runs or position < a.known:
        return [f"as of {position}, not a publication from {a.known} on"]
    if a.kind == "status":
        return [] if later["status", position] == document else [f"status otherwise at {position}"]
    found = []
    if document["approved"]["position"] != position:
        found.append(f"as of {position} but approved at {document['approved']['position']}")
    if a.kind == "leaderboard":
        if leaderboard_runs(document) != publications.runs[position]:
            found.append(f"as of {position}, not the runs published there")
        if without_approval(later["leaderboard", position]) != without_approval(document):
            found.append(f"answered otherwise as of {position} afterwards")
    else:
        if document["run_id"] not in publications.runs[position]:
            found.append(f"shown as of {position}, which does not hold it")
        if not {"log", "cast"} <= set(document["evidence"]):
            found.append(f"as of {position} without its evidence")
    return found


REQUESTS = 2_000
CLIENTS = 8
SECONDS = 60


@pytest.mark.slow
def test_mixed_reads_while_an_ingest_appends_all_answer_from_one_whole_publication(
    settings: Settings, ledger: Ledger, cli_env: dict[str, str], tmp_path: Path
) -> None:
    load_bundled_demo(settings, ledger)
    writer = Writer(settings, tmp_path / "records", runs=150)
    writer.published(*writer.round(ledger, 1))  # the readers start with runs of the load
    log = tmp_path / "server.log"
    with serving(cli_env, log) as origin:
        with writer.running(rounds=5):
            started = time.perf_counter()
            answers = mixed_load(origin, writer.publications, REQUESTS, CLIENTS, seconds=SECONDS)
            elapsed = time.perf_counter() - started
        problems = inconsistencies(answers, writer.publications, origin)

    assert len(answers) == REQUESTS or elapsed > SECONDS, "every client stopped by itself"
    assert len(answers) >= REQUESTS // 4, "a slow server answered too few to tell"
    errors = [line for line in log.read_text().splitlines() if '"level": "error"' in line]
    assert not problems, f"{len(problems)} inconsistent, the first: {problems[:10]}; {errors[:3]}"
    seen = {json.loads(a.body)["as_of"] for a in answers if a.kind in {"leaderboard", "run"}}
    assert len(seen) > 1, "an ingest was published while the clients read"
    print(  # the report: `pytest -s` shows it
        f"load: {summary(answers, elapsed)}, {len(writer.publications.positions)} ingests of "
        f"{writer.runs} runs, {len(seen)} publications seen"
    )
