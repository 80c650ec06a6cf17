"""A run's timeline (methodology section 17, the presentation layer: "subtítulos tomados de la
cronología registrada de errores y correcciones"): a pure projection of the served recording and
the run's record, never typed by anyone. The commands the recording shows and the exit statuses
it prints, the report's errors found and fixed placed where the recording shows them, the
verification command, and the end; derivable for any run whose recording is stored."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import msgspec

from domain.events import Report, RunRecorded
from domain.events.evidence import Mark, MarkKind, Timeline
from domain.evidence.asciicast import RecordingError, split_lines
from domain.evidence.quoting import quoted_final_state
from domain.evidence.terminal_text import normalised
from domain.verification import claim

LONGEST_LINE = 4096
"""Characters of a line kept (a line is a label at most: memory stays bounded, issue 16)."""
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]"
    r"|\x1b[@-Z\\^_=>]|[\x00-\x08\x0b-\x1f\x7f]"
)
COMMAND = re.compile(r"^(?:[$#] |--- (?:install|start|verify): )(?P<command>\S.*)$")
"""A command's line: a shell prompt (`$ ` or `# `) or the baseline agent's step line."""
STATUS = re.compile(r"\[exit (?P<a>\d+)\]|\bexit(?:ed with)? (?:status|code)[ :]+(?P<b>\d+)", re.I)
"""An exit status printed after a command (`[exit 1]`, `exit status: 2`, `exited with code 3`)."""
FAILURE = re.compile(
    r"\b(?:error|errors found|failed|failure|fatal|traceback|cannot|not found|no such)\b", re.I
)
"""Where no exit status is shown, output that says a command failed."""


class _Command(msgspec.Struct, kw_only=True):
    time: float
    text: str
    said: str | None = None
    """The first line of its output that says it failed (the only output kept)."""
    status: int | None = None
    until: float = 0.0


def recording_events(cast: Iterable[bytes]) -> Iterator[tuple[float, str]]:
    """The output events of an asciicast v2 or v3 recording: (seconds from the start, text)."""
    lines = split_lines(cast)
    header = msgspec.json.decode(next(lines, b"{}") or b"{}")
    relative = isinstance(header, dict) and header.get("version") == 3
    elapsed = 0.0
    for line in lines:
        if not line.strip() or line.startswith(b"#"):
            continue
        try:
            time, code, data = msgspec.json.decode(line, type=tuple[float, str, str])
        except msgspec.DecodeError as e:
            raise RecordingError(f"not an event: {line[:80]!r}") from e
        elapsed = elapsed + time if relative else time
        if code == "o":
            yield elapsed, data


def terminal_lines(events: Iterable[tuple[float, str]]) -> Iterator[tuple[float, str]]:
    """Each line of output as plain text, at the time its first character was written."""
    pending, started = "", None
    for time, data in events:
        for piece in re.split(r"(\n)", data):
            if piece == "\n":
                yield (time if started is None else started), _CONTROL.sub("", pending)
                pending, started = "", None
            elif piece:
                pending += piece[: max(0, LONGEST_LINE - len(pending))]
                started = time if started is None else started
    if pending:
        yield (0.0 if started is None else started), _CONTROL.sub("", pending)


def _commands(lines: Iterable[tuple[float, str]]) -> tuple[list[_Command], float]:
    commands: list[_Command] = []
    end = 0.0
    for time, line in lines:
        end = max(end, time)
        found = COMMAND.match(line.strip())
        if found:
            commands.append(_Command(time=time, text=found["command"]))
        elif commands:
            status = STATUS.search(line)
            if status and commands[-1].status is None:
                commands[-1].status = int(status["a"] or status["b"])
            if commands[-1].said is None and FAILURE.search(line):
                commands[-1].said = line.strip()
    for command, until in zip(commands, [*(c.time for c in commands[1:]), end], strict=False):
        command.until = until
    return commands, end


def failed(command: _Command) -> bool:
    """Section 17 ("ocultar fallos" is refused): a command fails when the recording shows a
    non-zero exit status for it, or, showing none, output that says it failed."""
    if command.status is not None:
        return command.status != 0
    return command.said is not None


def _label(command: _Command) -> str:
    status = "" if command.status is None else f" (exit {command.status})"
    return f"{command.text}{status}"


def _mark(command: _Command, kind: MarkKind, label: str) -> Mark:
    return Mark(
        time=command.time, until=command.until, status=command.status, kind=kind, label=label
    )


def _failure(command: _Command) -> Mark:
    said = f"{_label(command)}: {command.said}" if command.said else _label(command)
    return _mark(command, "failure", f"error found: {said}")


def _command_marks(commands: list[_Command], report: Report | None) -> list[Mark]:
    """Each command; a failure where it failed; a fix at the first command that succeeds after
    a failure, as many as the report says were fixed; the verification command it names."""
    verified = claim(report.verified_how).command if report and report.verified_how else ""
    wanted = normalised(verified).strip()
    fixes_left = report.errors_fixed if report else 0
    marks, open_failures = [], 0
    for command in commands:
        marks.append(_mark(command, "command", _label(command)))
        if failed(command):
            open_failures += 1
            marks.append(_failure(command))
        elif open_failures and fixes_left:
            open_failures, fixes_left = open_failures - 1, fixes_left - 1
            marks.append(_mark(command, "fixed", f"fixed by: {_label(command)}"))
        if wanted and wanted in normalised(command.text):
            marks.append(_mark(command, "verification", f"verified: {_label(command)}"))
    return marks


def run_timeline(run: RunRecorded, cast: Iterable[bytes], source_sha256: str) -> Timeline:
    """Section 17: the run's timeline from its served recording and its record."""
    last = [0.0]

    def timed(events: Iterator[tuple[float, str]]) -> Iterator[tuple[float, str]]:
        for event in events:
            last[0] = event[0]
            yield event

    commands, end = _commands(terminal_lines(timed(recording_events(cast))))
    end = max(end, last[0])
    report = run.report
    marks = _command_marks(commands, report)
    final = quoted_final_state(run) or run.status  # as the run page quotes it
    marks.append(Mark(time=end, until=end, kind="end", label=f"end ({run.status}): {final}"))
    found = report.errors_found if report else 0
    seen = sum(1 for mark in marks if mark.kind == "failure")
    return Timeline(
        source_sha256=source_sha256,
        duration=end,
        marks=marks,
        errors_found=found,
        errors_fixed=report.errors_fixed if report else 0,
        errors_unplaced=max(0, found - seen),
    )


def failures(timeline: Timeline) -> list[Mark]:
    """The recorded failures of a timeline."""
    return [mark for mark in timeline.marks if mark.kind == "failure"]
