"""One JSON shape of an approval for people (`specbridge approvals show --format json`, the admin API)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ..store import Approval


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _when(seconds: float | None) -> str | None:
    return None if seconds is None else iso(seconds)


# What a client's webhook is told of its own approval, in this order (see `client_approval_json`).
CLIENT_FIELDS = (
    "id",
    "status",
    "api",
    "tool",
    "client",
    "arguments",
    "reason",
    "created_at",
    "expires_at",
    "answered_at",
)


def approval_json(approval: Approval) -> dict[str, Any]:
    """Times as ISO 8601 UTC; `bound` apart from `arguments`, since the model never saw those values."""
    return {
        "id": approval.id,
        "status": str(approval.status),
        "api": approval.api,
        "tool": approval.tool,
        "client": approval.client,
        "arguments": approval.arguments,
        "bound": approval.bound,
        "reason": approval.reason,
        "answered_by": approval.answered_by,
        "created_at": _when(approval.created_at),
        "expires_at": _when(approval.expires_at),
        "answered_at": _when(approval.answered_at),
        "finished_at": _when(approval.finished_at),
        "upstream_status": upstream_status(approval),
        "result": approval.result,
        "repeat_of": approval.repeat_of,
    }


def upstream_status(approval: Approval) -> int | None:
    """The API's HTTP status of a sent call (`done`: 2xx; `failed`: any other, or None: no answer)."""
    status = approval.result.get("status") if isinstance(approval.result, dict) else None
    return status if isinstance(status, int) else None


def client_approval_json(approval: Approval) -> dict[str, Any]:
    """An approval as its own client's webhook gets it: what the client's agent sent and what became of
    it, nothing the operator keeps to themselves: not the bound values (the config's, which the model
    never saw), not who answered (an admin id), not a result (an answer event never has one)."""
    shown = approval_json(approval)
    return {key: shown[key] for key in CLIENT_FIELDS}


def status_text(approval: Approval) -> str:
    """The status as a person reads it: `done (HTTP 201)`, `failed (HTTP 409)`, else the status."""
    code = upstream_status(approval)
    return f"{approval.status} (HTTP {code})" if code is not None else str(approval.status)


def ago(seconds: float) -> str:
    """A time in the past as a person reads it: `40 s ago`, `12 min ago`, `2 h ago`, `3 d ago`."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} d ago"


def repeat_note(earlier: Approval, now: float) -> str:
    """How a repeat names the approval of the same call before it: `same call as <id>, done (HTTP 200)
    2 h ago` (when it ended: sent, answered or asked)."""
    ended = earlier.finished_at or earlier.answered_at or earlier.created_at
    return f"same call as {earlier.id}, {status_text(earlier)} {ago(now - ended)}"
