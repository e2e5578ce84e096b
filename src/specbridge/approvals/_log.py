"""Who answered what, and when: one JSON line per answer, wherever it is given (the command line, the
admin API and page, the client's user under `approvals.by: client`), and per admin action (a sign-in,
an admin key used), in the process's log (`_logging`) and, when `audit:` is set, its audit log."""

from __future__ import annotations

from typing import Any

from .._audit import audit_event
from .._logging import log_event
from ..store import Approval


def log_admin(event: str, **fields: Any) -> None:
    """An admin action (a sign-in, an admin key used or refused, an answer), in the gateway's log and in
    the audit log: names and outcomes only, never a key, an argument or a reason typed."""
    log_event(event, **fields)
    audit_event(event, **fields)


def log_answer(approval: Approval, by: str, answer: str, via: str) -> None:
    """One line per answer (`log_admin`): who (`by`), what (the approval, its API, tool and client, the
    answer — `approve` or `reject` — and the status it led to), how (`via`: `cli`, `admin-api`,
    `admin-page`, `client`), when (the line's time); never the arguments, bound values or the reason."""
    log_admin(
        "approval answered",
        answer=answer,
        by=by,
        via=via,
        approval=approval.id,
        api=approval.api,
        tool=approval.tool,
        client=approval.client,
        status=str(approval.status),
    )
