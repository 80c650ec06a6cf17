"""Execute one claimed run in its single-use sandbox (methodology section 7): its own key, the
pinned source, the sandbox, the agent in a recorded pseudo-terminal, and deadlines that hold.

Two threads per run: a reader that only copies the session's bytes into the recording (no agent
code runs in the orchestrator), and the deadline loop, which ends the run when the agent exits,
its budget runs out, or someone cancels it, then kills the sandbox and deletes the key in
parallel. Every step is recorded before the next; a failure of our own tooling aborts the run.
"""

from __future__ import annotations

import io
import tarfile
import threading
from datetime import timedelta

from api.services.instructions import kept_instructions, published
from api.services.run_end import abort, finish, stop_now
from api.services.run_log import RunMoved
from api.services.runner_ports import Runner, SecretValue, Session
from api.services.screen import start_filming
from domain.errors import ArgusicError
from domain.events import (
    AgentExited,
    AgentStarted,
    AgentTimedOut,
    ModelKeyCreated,
    ModelKeyCreationFailed,
    ModelKeyRequested,
    RunAborted,
    RunScheduled,
    SandboxCreated,
    SourceFetched,
)
from domain.runner.budgets import key_limit, pid1_seconds, timeout_at
from domain.runner.endings import agent_end, budget_end
from domain.runner.lifecycle import RunState
from domain.runner.naming import key_name
from domain.runner.sandbox import agent_environment, sandbox_spec
from ledger.ledger import NewEvent

READER_GRACE = 10.0
"""Seconds the recording may take to drain after the sandbox was killed."""
REPORT = "/argusic/report.json"


class Attempt:
    """One claimed run, carried to its close (or back to scheduled when no key was had)."""

    def __init__(self, runner: Runner, state: RunState) -> None:
        self.runner = runner
        self.state = state
        self.secret: SecretValue | None = None
        self.report: bytes | None = None

    def execute(self) -> RunState:
        try:
            if not self._provision_key():
                return self.state
            self._prepare()
            self._run_agent()
        except RunMoved:
            self.state = self.runner.log.load(self.state.run_id)
        except Exception as e:  # any failure of ours aborts the run, never the worker
            self.state = abort(self.runner, self._fresh(), f"{type(e).__name__}: {e}")
        return finish(self.runner, self.state, self.report, self._key())

    def _key(self) -> str | None:
        return None if self.secret is None else self.secret.reveal()

    def _fresh(self) -> RunState:
        return self.runner.log.load(self.state.run_id)

    def _append(self, *events: object, beside: list[NewEvent] | None = None) -> None:
        self.state = self.runner.log.append(self.state, *events, beside=beside or [])  # type: ignore[arg-type]

    def _provision_key(self) -> bool:
        """Methodology section 7, "La clave del modelo": a key of this run's own, limited (a
        GPU run by its own limit, section 6a) and expiring at its deadline; none, and the run
        waits to be tried again (never a shared key instead)."""
        run, runner = self.state.scheduled, self.runner
        if run.key == "shared_vendor":
            shared = runner.shared_keys.get(run.runtime.key_env)
            self.secret = None if shared is None else _Plain(shared)
            return True
        assert self.state.deadline is not None
        name = key_name(runner.ledger_tag, run.run_id, self.state.claim)
        limit = key_limit(run, runner.config.keys)
        self._append(
            ModelKeyRequested(
                run_id=run.run_id,
                claim=self.state.claim,
                key_name=name,
                limit_usd=limit,
                expires_at=self.state.deadline,
            )
        )
        try:
            created = runner.keys.create(name, limit, self.state.deadline)
        except ArgusicError as e:
            retry = runner.clock() + timedelta(seconds=runner.key_retry_seconds)
            self._append(
                ModelKeyCreationFailed(run_id=run.run_id, reason=str(e), retry_after=retry)
            )
            return False
        self.secret = created.secret
        self._append(
            ModelKeyCreated(
                run_id=run.run_id,
                key_hash=created.info.hash,
                key_name=name,
                limit_usd=limit,
                expires_at=self.state.deadline,
            )
        )
        return True

    def _prepare(self) -> None:
        """Section 7 point 1: the pinned commit only, in a fresh, confined sandbox."""
        run, runner = self.state.scheduled, self.runner
        project = run.project
        if not project.repo or not project.commit:
            raise _Tooling(f"project {project.id} has no repository and commit to fetch")
        fetched = runner.source.fetch(project.repo, project.commit)
        self._append(
            SourceFetched(
                run_id=run.run_id,
                commit=fetched.commit,
                tree=fetched.tree,
                archive_sha256=fetched.archive_sha256,
                method=fetched.method,
            )
        )
        deadline = self.state.deadline
        assert deadline is not None
        spec = sandbox_spec(
            run,
            self.state.claim,
            deadline,
            ledger=runner.ledger_tag,
            nonce=runner.nonce(),
            policy=runner.config.sandbox,
            pid1_seconds=pid1_seconds(runner.clock(), deadline),
        )
        digest = runner.sandboxes.image_digest(spec.image)
        instructions = _instructions(runner, run)
        try:
            container_id = runner.sandboxes.create(
                spec, _with_instructions(fetched.archive, instructions)
            )
            if spec.display is not None:
                runner.sandboxes.wait_display(spec.name, spec.display)
        except ArgusicError:
            runner.sandboxes.remove(spec.name)  # half made: nothing of it may stay
            raise
        _, shown = agent_environment(run, runner.model_base_url, None)
        self._append(
            SandboxCreated(
                run_id=run.run_id,
                name=spec.name,
                container_id=container_id,
                image=spec.image,
                image_digest=digest,
                limits=spec.limits,
                budget_seconds=run.budget_seconds,
                deadline=deadline,
                environment=shown,
                key_env=run.runtime.key_env if self.secret is not None else None,
                engine_version=runner.sandboxes.engine_version(),
                instructions_sha256=published(runner.log.ledger, runner.store, instructions),
            )
        )

    def _run_agent(self) -> None:
        run, runner = self.state.scheduled, self.runner
        name = self.state.sandbox
        assert name is not None
        assert self.state.deadline is not None
        environment, _ = agent_environment(run, runner.model_base_url, self._key())
        session = runner.sandboxes.start_agent(name, run.runtime.command, environment)
        started = runner.clock()
        self._append(
            AgentStarted(
                run_id=run.run_id,
                started_at=started,
                timeout_at=timeout_at(started, run.budget_seconds),
            )
        )
        cast, log = runner.evidence_paths(run.run_id)
        recorder = runner.open_recorder(cast, log, run.run_id, int(started.timestamp()))
        filming = start_filming(runner, run, name)
        done = threading.Event()
        reader = threading.Thread(
            target=_copy, args=(session, recorder, done), daemon=True, name=f"read {run.run_id}"
        )
        reader.start()
        try:
            self._watch(session, done)
        finally:
            if not done.wait(READER_GRACE):
                session.interrupt()  # the engine stalled: stop waiting for its bytes
                done.wait(READER_GRACE)
            recorder.close()
            if filming is not None:
                filming.close()
            session.close()

    def _watch(self, session: Session, done: threading.Event) -> None:
        """The deadline loop: end the run on the agent's exit, its budget, or a cancellation."""
        runner, state = self.runner, self.state
        assert state.timeout_at is not None
        assert state.deadline is not None
        limit = min(state.timeout_at, state.deadline)
        while True:
            left = (limit - runner.clock()).total_seconds()
            if done.wait(max(0.0, min(runner.poll_seconds, left))):
                return self._agent_ended(session)
            if runner.clock() >= limit:
                ended, reason = budget_end(state.timeout_at, state.deadline)
                now = runner.clock()
                ending = (
                    AgentTimedOut(run_id=state.run_id, ended_at=now)
                    if ended == "timed_out"
                    else RunAborted(run_id=state.run_id, reason=reason or ended, ended_at=now)
                )
                self._append(ending)
                stop_now(runner, self.state)
                return None
            if runner.log.load(state.run_id).phase != "running":  # cancelled meanwhile
                stop_now(runner, runner.log.load(state.run_id))
                raise RunMoved("cancelled")

    def _agent_ended(self, session: Session) -> None:
        runner, state = self.runner, self.state
        assert state.sandbox is not None
        exit_code = session.exit_code()
        sandbox = runner.sandboxes.settled_state(state.sandbox, within=0.5)
        ended, reason = agent_end(exit_code, sandbox.running, sandbox.oom_killed)
        now = runner.clock()
        if ended == "exited":
            self.report = runner.sandboxes.read_file(state.sandbox, REPORT)
            if self.report is not None:  # before the exit is recorded: a restart closes with it
                runner.keep_report(state.run_id, self.report)
            self._append(AgentExited(run_id=state.run_id, exit_code=exit_code or 0, ended_at=now))
        else:
            self._append(RunAborted(run_id=state.run_id, reason=reason or ended, ended_at=now))
        stop_now(runner, self.state)


class _Tooling(ArgusicError, RuntimeError):
    """A step of ours cannot be done for this run."""


class _Plain:
    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value


def _copy(session: Session, recorder: object, done: threading.Event) -> None:
    try:
        for chunk in session.chunks():
            recorder.write(chunk)  # type: ignore[attr-defined]
    finally:
        done.set()


def _instructions(runner: Runner, run: RunScheduled) -> bytes:
    """The standard instructions in force, or a reproduction's pinned version as kept."""
    if run.instructions_sha256 is None:
        return runner.instructions
    return kept_instructions(runner.store, run.instructions_sha256)


def _with_instructions(project: bytes, instructions: bytes) -> bytes:
    """The files copied into /argusic: the project's tree and the standard instructions."""
    buffer = io.BytesIO(project)
    buffer.seek(0, io.SEEK_END)
    buffer.seek(0)
    with tarfile.open(fileobj=buffer, mode="a") as tar:
        info = tarfile.TarInfo("instructions.md")
        info.size, info.mode = len(instructions), 0o644
        tar.addfile(info, io.BytesIO(instructions))
    return buffer.getvalue()


def execute(runner: Runner, state: RunState) -> RunState:
    """Carry a claimed run to its close; the state it was left in."""
    return Attempt(runner, state).execute()
