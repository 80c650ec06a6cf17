"""Operators over HTTP: a signed action, made elsewhere (`argusic operator sign`), submitted."""

from __future__ import annotations

from litestar import Router, post
from litestar.di import NamedDependency
from litestar.exceptions import MethodNotAllowedException
from litestar.params import JSONBody

from api.http.openapi import problems
from api.services.operators import ActionDesk, ActionReport
from domain.operators import SignedAction


@post("/operator/actions", sync_to_thread=True, status_code=201, responses=problems(503))
def submit_action(
    actions: NamedDependency[ActionDesk], data: JSONBody[SignedAction]
) -> ActionReport:
    """Verify a signed action (a known, unrevoked key; its signature; its next sequence; a
    role that allows it) and append it with what it decides, or refuse it naming why."""
    return actions.submit(data)


@post("/operator/actions", sync_to_thread=False, status_code=201, responses=problems(405))
def refuse_action() -> None:
    """A server that only reads (`argusic serve --read-only`) takes no action: actions go to a
    server on the primary, which holds the signing key."""
    raise MethodNotAllowedException(
        detail="this server only reads: submit operator actions to a server on the primary"
    )


router = Router("/", route_handlers=[submit_action])
read_only_router = Router("/", route_handlers=[refuse_action])
