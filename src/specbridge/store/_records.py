"""Records to flat fields and back, shared by the three backends (JSON values stored as text)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from .._json import dumps
from ._model import (
    CHANGEABLE,
    Announcement,
    Approval,
    Claim,
    ClaimState,
    Delivery,
    Json,
    Status,
    StoredFile,
)

APPROVAL_FIELDS = (
    "id",
    "api",
    "tool",
    "client",
    "arguments",
    "bound",
    "fingerprint",
    "status",
    "created_at",
    "expires_at",
    "reason",
    "answered_by",
    "answered_at",
    "owner",
    "lease_until",
    "finished_at",
    "result",
    "settled_at",
    "idempotency_key",
    "repeat_of",
)
JSON_FIELDS = frozenset({"arguments", "bound", "result", "payload"})
FLOAT_FIELDS = frozenset(
    {"created_at", "expires_at", "answered_at", "lease_until", "finished_at", "settled_at", "due_at"}
)


def encode(name: str, value: Any) -> Any:
    """A field's value as stored: JSON as text (None stays None), times as floats, the rest as is."""
    if value is None:
        return None
    if name in JSON_FIELDS:
        return dumps(value)
    if name in FLOAT_FIELDS:
        return float(value)
    return str(value) if isinstance(value, Status | ClaimState) else value


def decode_json(text: str | bytes | None) -> Json:
    # The standard library, not orjson: arguments may hold integers past 64 bits.
    return None if text is None else json.loads(text)


def approval_values(approval: Approval) -> list[Any]:
    return [encode(name, getattr(approval, name)) for name in APPROVAL_FIELDS]


def approval_from(row: Mapping[str, Any]) -> Approval:
    def number(name: str) -> float | None:
        value = row.get(name)
        return None if value is None or value == "" else float(value)

    def text(name: str) -> str | None:
        value = row.get(name)
        return None if value is None else str(value)

    return Approval(
        id=str(row["id"]),
        api=str(row["api"]),
        tool=str(row["tool"]),
        client=str(row["client"]),
        arguments=decode_json(row["arguments"]),
        bound=decode_json(row["bound"]),
        fingerprint=str(row["fingerprint"]),
        status=Status(row["status"]),
        created_at=float(row["created_at"]),
        expires_at=float(row["expires_at"]),
        reason=text("reason"),
        answered_by=text("answered_by"),
        answered_at=number("answered_at"),
        owner=text("owner"),
        lease_until=number("lease_until"),
        finished_at=number("finished_at"),
        result=decode_json(row.get("result")),
        settled_at=number("settled_at"),
        idempotency_key=text("idempotency_key"),
        repeat_of=text("repeat_of"),
    )


def checked_changes(changes: Mapping[str, Json]) -> dict[str, Any]:
    unknown = set(changes) - CHANGEABLE
    if unknown:
        raise ValueError(f"fields that cannot change: {sorted(unknown)}")
    return {name: encode(name, value) for name, value in changes.items()}


Announced = Announcement | Sequence[Announcement] | None


def announcements(announce: Announced) -> tuple[Announcement, ...]:
    """One announcement, several (one per receiver) or none, as a tuple."""
    if announce is None:
        return ()
    return (announce,) if isinstance(announce, Announcement) else tuple(announce)


def delivery_values(
    announce: Announcement, due: float | None = None
) -> tuple[str, str, str, float, float, str | None, str | None]:
    """A new outbox row (`_sql.OUTBOX_FIELDS`): id, topic, payload, created_at, due_at (`due`, or at
    once), receiver, stream ("" stored as NULL: no stream, no ordering)."""
    return (
        secrets.token_urlsafe(18),
        announce.topic,
        dumps(announce.payload),
        announce.at,
        announce.at if due is None else due,
        announce.receiver or None,
        announce.stream or None,
    )


def claim_from(row: Mapping[str, Any], now: float, *, won: bool = False) -> Claim:
    state = ClaimState(row["state"])
    lease_until = float(row["lease_until"])
    if state is ClaimState.HELD and lease_until <= now:
        state = ClaimState.UNKNOWN
    return Claim(
        key=str(row["key"]),
        owner=str(row["owner"]),
        state=state,
        fingerprint=str(row["fingerprint"]),
        lease_until=lease_until,
        expires_at=float(row["expires_at"]),
        result=decode_json(row.get("result")),
        won=won,
    )


def delivery_from(row: Mapping[str, Any]) -> Delivery:
    error = row.get("last_error")
    return Delivery(
        id=str(row["id"]),
        topic=str(row["topic"]),
        payload=decode_json(row["payload"]),
        created_at=float(row["created_at"]),
        attempts=int(row["attempts"]),
        last_error=None if error is None or error == "" else str(error),
        receiver=row.get("receiver") or None,
        stream=row.get("stream") or None,
    )


def file_values(file: StoredFile) -> tuple[Any, ...]:
    """The columns of `_sql.FILE_FIELDS`, in that order."""
    return (
        file.id,
        file.owner,
        file.content_type,
        file.filename,
        file.size,
        file.created_at,
        file.expires_at,
    )


def file_from(row: Mapping[str, Any]) -> StoredFile:
    filename = row.get("filename")
    return StoredFile(
        id=str(row["id"]),
        owner=str(row["owner"]),
        content_type=str(row["content_type"]),
        filename=None if filename in (None, "") else str(filename),
        size=int(row["size"]),
        created_at=float(row["created_at"]),
        expires_at=float(row["expires_at"]),
    )
