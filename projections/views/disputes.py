"""Every dispute (methodology section 19): the run, the claim, and how it was resolved."""

from __future__ import annotations

import msgspec

from domain.state.methodology import Methodology
from domain.state.records import Dispute
from projections.views.approved import Approved


class DisputesView(msgspec.Struct, frozen=True, kw_only=True):
    as_of: int
    disputes: list[Dispute]
    approved: Approved | None = None


def disputes_view(state: Methodology, as_of: int) -> DisputesView:
    return DisputesView(as_of=as_of, disputes=list(state.disputes.values()))
