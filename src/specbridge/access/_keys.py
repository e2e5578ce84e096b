"""Client API keys: made once, stored only as SHA-256, looked up in constant time per client."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .._errors import ErrorCode
from ..config import ClientConfig

KEY_PREFIX = "sbk_"
ADMIN_KEY_PREFIX = "sba_"


class KeyHolder(Protocol):
    """A client or an admin: someone known by the SHA-256 of their key."""

    @property
    def key_sha256(self) -> str: ...


Holder = TypeVar("Holder", bound=KeyHolder)


def new_key(*, admin: bool = False) -> str:
    """A fresh client (or admin) key: 256 random bits, URL-safe, recognisable by its prefix."""
    return (ADMIN_KEY_PREFIX if admin else KEY_PREFIX) + secrets.token_urlsafe(32)


def key_sha256(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int  # 401 or 403 (503 when a token cannot be checked now)
    code: ErrorCode
    message: str
    headers: tuple[tuple[str, str], ...] = ()  # e.g. an OAuth API's `WWW-Authenticate` challenge


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key from `Authorization: Bearer <key>` or `X-Api-Key: <key>` (header names case-insensitive)."""
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    key = headers.get("x-api-key", "").strip()
    return key or None


def find_client(key: str, clients: Mapping[str, Holder]) -> Holder | None:
    """The client (or admin) whose key this is, comparing against every one in constant time."""
    digest = key_sha256(key)
    found = None
    for client in clients.values():
        # Compare against every client so the time taken does not say which one nearly matched.
        if hmac.compare_digest(digest, client.key_sha256):
            found = client
    return found


def authenticate(
    headers: Mapping[str, str], clients: Mapping[str, ClientConfig], api: str
) -> ClientConfig | Refusal | None:
    """The client a request comes from; None when the config has no clients (keys not required)."""
    if not clients:
        return None
    key = presented_key(headers)
    if key is None:
        return Refusal(
            401, ErrorCode.KEY_MISSING, "send your key as `Authorization: Bearer <key>` or `X-Api-Key: <key>`"
        )
    client = find_client(key, clients)
    if client is None:
        return Refusal(401, ErrorCode.KEY_INVALID, "this key is not known to the gateway")
    if api not in client.apis:
        return Refusal(403, ErrorCode.API_FORBIDDEN, f"client {client.id!r} may not use the API {api!r}")
    return client
