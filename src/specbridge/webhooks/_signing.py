"""Signing and checking deliveries the Standard Webhooks way: `webhook-id` (the outbox id, the same on
every retry), `webhook-timestamp` (seconds, at this attempt) and `webhook-signature`: `v1,<base64 of
HMAC-SHA256 over "id.timestamp.body">`, one per configured secret, space-separated, so while a secret is
rotated receivers holding either the old or the new one accept. A `whsec_…` secret is base64 after its
prefix (as Standard Webhooks libraries read it); any other secret is used as its raw bytes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping, Sequence

SECRET_PREFIX = "whsec_"
USER_AGENT = "specbridge-webhooks"


def secret_key(secret: str) -> bytes:
    """The HMAC key a secret stands for: base64 after `whsec_`, else the text's own bytes."""
    if secret.startswith(SECRET_PREFIX):
        try:
            return base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
        except ValueError:
            raise ValueError("a whsec_ secret must be base64 after its prefix") from None
    return secret.encode("utf-8")


def signature(msg_id: str, timestamp: int, body: bytes, keys: Sequence[bytes]) -> str:
    """The `webhook-signature` header: `v1,<base64>` per key, space-separated."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return " ".join(
        "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")
        for key in keys
    )


def signed_headers(msg_id: str, timestamp: int, body: bytes, keys: Sequence[bytes]) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(msg_id, timestamp, body, keys),
    }


def verify(
    headers: Mapping[str, str],
    body: bytes,
    secrets: Sequence[str],
    *,
    now: float | None = None,
    max_age: float | None = None,
) -> str | None:
    """Why a delivery is not one of ours signed with one of `secrets` (None when it is): the Standard
    Webhooks check a receiver makes, for `specbridge webhooks verify`. `max_age` (seconds) also refuses
    an old or future timestamp, as a live receiver should to stop replays."""
    found = {name.lower(): value for name, value in headers.items()}
    msg_id, stamp, given = (found.get(f"webhook-{part}") for part in ("id", "timestamp", "signature"))
    if not msg_id or not stamp or not given:
        return "the webhook-id, webhook-timestamp and webhook-signature headers are all needed"
    if not stamp.isdigit():
        return "webhook-timestamp is not a whole number of seconds"
    if max_age is not None and abs((time.time() if now is None else now) - int(stamp)) > max_age:
        return f"webhook-timestamp is more than {max_age:g} s away from now (a replay, or a saved delivery)"
    expected = set(signature(msg_id, int(stamp), body, [secret_key(secret) for secret in secrets]).split())
    offered = {part for part in given.split() if part.startswith("v1,")}
    if any(hmac.compare_digest(mine, theirs) for mine in expected for theirs in offered):
        return None
    return "no v1 signature matches the secret(s) given for this id, timestamp and body"
