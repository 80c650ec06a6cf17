"""`argusic operator init | add | revoke | act | sign | submit`, `publish`, `request-stronger`,
`disputes`, `agents`: a person acts only through actions signed with a key registered in the
ledger."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from api.cli.output import Session, emit, json_option, pass_session, published_option
from api.services.audit import write_bundle
from api.services.json_input import read_record_file
from api.services.operators import (
    ActionReport,
    InitReport,
    operator_signer,
    read_action,
    read_signed,
    sign_action,
)
from api.wiring import CLOCK
from domain.errors import SetupError
from domain.events.operators import (
    AddOperator,
    ApprovePublication,
    OperatorAction,
    RequestStronger,
    RevokeOperator,
)
from ledger.signing_key import load_signer
from projections.views.agents import AgentsView
from projections.views.disputes import DisputesView

existing = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group("operator")
def operator() -> None:
    """Operators' keys and signed actions."""


def _report_human(report: ActionReport) -> str:
    return f"{report.action} by {report.operator} (sequence {report.sequence}) at {report.position}"


def act(session: Session, signer_name: str, action: OperatorAction) -> None:
    """`action` signed by the operator SIGNER_NAME's key and appended; its report printed."""
    argusic = session.argusic
    signer = operator_signer(argusic.settings.home, signer_name)
    emit(argusic.actions.act(signer, action), _report_human)


@operator.command("init")
@click.argument("name")
@json_option
@pass_session
def init_command(session: Session, name: str, as_json: bool) -> None:
    """The first operator (an owner) of a ledger with no operator; its key is written to
    ARGUSIC_HOME/operators/NAME.key, readable by its owner only. Only here is a ledger's first
    owner made: no submitted action (nor HTTP) registers one."""
    argusic = session.argusic
    report: InitReport = argusic.actions.init_owner(argusic.settings.home, name)
    emit(report, lambda r: f"{r.name} is the owner: {r.public_key}")


@operator.command("add")
@click.argument("name")
@click.argument("public_key")
@click.option("--role", type=click.Choice(["owner", "operator"]), required=True)
@click.option("--as", "signer", required=True, help="The owner who signs the addition.")
@json_option
@pass_session
def add_command(
    session: Session, *, name: str, public_key: str, role: str, signer: str, as_json: bool
) -> None:
    """Register NAME's verifier key (`<name>+<key id>+<key>`), signed by an owner."""
    action = AddOperator(name=name, public_key=public_key, role=role)  # type: ignore[arg-type]
    act(session, signer, action)


@operator.command("revoke")
@click.argument("name")
@click.option("--as", "signer", required=True, help="The owner who signs the revocation.")
@json_option
@pass_session
def revoke_command(session: Session, name: str, signer: str, as_json: bool) -> None:
    """Revoke NAME's key: what it signs from now on is refused."""
    act(session, signer, RevokeOperator(name=name))


@operator.command("act")
@click.argument("action_file", type=existing)
@click.option("--as", "signer", required=True, help="The operator whose key signs it.")
@json_option
@pass_session
def act_command(session: Session, action_file: Path, signer: str, as_json: bool) -> None:
    """Sign the action of ACTION_FILE with the operator's next sequence and append it."""
    act(session, signer, read_action(read_record_file(action_file)))


@operator.command("sign")
@click.argument("action_file", type=existing)
@click.option("--key", "key_file", type=existing, required=True, help="The operator's key file.")
@click.option(
    "--sequence", type=click.IntRange(min=1), help="Default: the key's next in the ledger."
)
@click.option(
    "--ledger",
    "origin",
    help="The origin of the ledger the action is for, when signing away from it "
    "(with --sequence); default: the ledger configured.",
)
@pass_session
def sign_command(
    session: Session,
    action_file: Path,
    key_file: Path,
    sequence: int | None,
    origin: str | None,
) -> None:
    """Print the action signed (one JSON object), to submit elsewhere."""
    signer = load_signer(key_file)
    if signer is None:
        raise SetupError(f"no key at {key_file}")
    action = read_action(read_record_file(action_file))
    if origin is not None:
        if sequence is None:
            raise click.UsageError("--ledger signs away from the ledger: give --sequence too")
        signed = sign_action(signer, action, CLOCK, sequence, origin)
    else:
        signed = session.argusic.actions.sign(signer, action, sequence)
    sys.stdout.buffer.write(msgspec.json.encode(signed) + b"\n")


@operator.command("submit")
@click.argument("signed_file", type=existing)
@json_option
@pass_session
def submit_command(session: Session, signed_file: Path, as_json: bool) -> None:
    """Append a signed action (also `POST /operator/actions`)."""
    signed = read_signed(read_record_file(signed_file))
    emit(session.argusic.actions.submit(signed), _report_human)


@click.command("publish")
@click.option("--as", "signer", required=True, help="The operator who approves.")
@click.option("--position", type=int, help="Default: the head, before this approval.")
@json_option
@pass_session
def publish_command(session: Session, signer: str, position: int | None, as_json: bool) -> None:
    """Approve the ledger up to POSITION for the public (methodology section 1)."""
    at = session.argusic.ledger.size() if position is None else position
    act(session, signer, ApprovePublication(position=at))


@click.command("request-stronger")
@click.option("--project", required=True)
@click.option("--cycle", required=True)
@click.option("--as", "signer", required=True, help="The operator who asks.")
@json_option
@pass_session
def request_stronger_command(
    session: Session, project: str, cycle: str, signer: str, as_json: bool
) -> None:
    """Ask for the cycle's stronger agent on PROJECT (methodology section 11; from v1.3 it runs
    only on this); the next schedule or worker turn schedules it."""
    act(session, signer, RequestStronger(project=project, cycle=cycle))


def _disputes_human(view: DisputesView) -> str:
    return (
        "\n".join(
            f"{d.id}: {d.run_id} by {d.claimant}: {d.claim}"
            + (f"\n  {d.outcome}: {d.note}" if d.outcome else "\n  open")
            for d in view.disputes
        )
        or "no disputes"
    )


@click.command("disputes")
@published_option
@json_option
@pass_session
def disputes_command(session: Session, as_json: bool) -> None:
    """Every dispute of a result and how it was resolved (methodology section 19)."""
    emit(session.methodology.disputes(), _disputes_human)


def _agents_human(view: AgentsView) -> str:
    lines = [f"cycle {view.cycle}" + (" (closed)" if view.closed else "")]
    lines += [
        f"  {a.id:16} {a.label:24} {a.model} {a.model_version} / {a.harness} {a.harness_version}"
        + (f"  sponsored: {a.sponsor}" if a.sponsor else "")
        for a in view.agents
    ]
    lines += [f"  {p.id} @ {p.commit} ({p.pool})" for p in view.projects]
    return "\n".join(lines)


@click.command("agents")
@click.option("--cycle", required=True)
@click.option("--as-of", type=int, help="Answer as of this ledger position.")
@published_option
@json_option
@pass_session
def agents_command(session: Session, cycle: str, as_of: int | None, as_json: bool) -> None:
    """A cycle's roster and pool (methodology sections 5, 6 and 18)."""
    emit(session.methodology.agents(cycle, as_of), _agents_human)


@click.group("audit")
def audit() -> None:
    """Audit bundles: a public figure with what recomputes it offline."""


@audit.command("bundle")
@click.argument("figure")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@json_option
@pass_session
def bundle_command(session: Session, figure: str, out: Path, as_json: bool) -> None:
    """FIGURE is run:ID, leaderboard:CYCLE, siiq:SLUG or cycle:CYCLE; check the bundle with
    `python -m ledger.offline_verify bundle DIR --key KEY` (KEY: `argusic ledger public-key`)."""
    argusic = session.argusic
    report = write_bundle(figure, argusic.ledger, argusic.methodology.state(), out)
    emit(report, lambda r: f"{r.figure}: {r.events} events, checkpoint {r.checkpoint}, in {r.out}")


commands = (
    operator,
    publish_command,
    request_stronger_command,
    disputes_command,
    agents_command,
    audit,
)
