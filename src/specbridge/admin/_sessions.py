"""The page's sign-in sessions, each tied to the admin and the key it signed in with: `PageSessions`,
kept in this process (`Sessions`, for the admin app on its own) or in the store (`_stored_sessions`,
what the gateway uses, so a page load on any instance is signed in).

A session is only as good as the admin behind it: every request checks that the admin still exists in
the config served now, with the same key hash. A reload that removes an admin or gives it a new key
ends its sessions at their next request (the old key no longer opens anything, and neither does a
session opened with it). The CSRF token is derived from the session's id (`csrf_of`), so nothing a
store keeps is enough to answer a form.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._logging import log_event
from ..config import AdminConfig, ClaimRule, first_match

DEFAULT_SESSION_TTL = 8 * 3600.0
MAX_SESSIONS = 10_000


@dataclass(slots=True)
class Session:
    admin: str
    key_sha256: str  # the admin's key hash at sign-in
    csrf: str
    expires: float
    via: str = "key"  # "key", or "oidc": signed in at `oauth_server.upstream`, as `claims` say
    claims: dict[str, Any] | None = None  # the ID token's claims the admin rules read (oidc only)


def csrf_of(sid: str) -> str:
    return hashlib.sha256(b"specbridge-admin-csrf:" + sid.encode()).hexdigest()


def ended_why(
    session: Session, now: float, admins: Mapping[str, AdminConfig], rules: tuple[ClaimRule, ...] = ()
) -> str | None:
    """Why `session` no longer opens the page (expired, admin removed, key changed, or for a sign-in
    with OpenID Connect: no rule of `oauth_server.admins` maps its claims to that admin now), or None."""
    if session.expires <= now:
        return "expired"
    admin = admins.get(session.admin)
    if admin is None:
        return "admin removed"
    if session.via == "oidc":
        return None if first_match(rules, session.claims or {}) == admin.id else "admin rule changed"
    if not admin.key_sha256 or not hmac.compare_digest(
        admin.key_sha256.encode(), session.key_sha256.encode()
    ):
        return "admin key changed"
    return None


class PageSessions(ABC):
    ttl: float

    @abstractmethod
    async def open(self, admin: AdminConfig, claims: dict[str, Any] | None = None) -> tuple[str, Session]:
        """A new session for `admin` (signed in with its key, or with OpenID Connect as `claims` say):
        its id (the cookie's value) and the session."""

    @abstractmethod
    async def get(
        self, sid: str | None, admins: Mapping[str, AdminConfig], rules: tuple[ClaimRule, ...] = ()
    ) -> Session | None:
        """The live session `sid` names: not expired, its admin still in `admins` with the same key
        (or still mapped by `rules`, for a sign-in with OpenID Connect)."""

    @abstractmethod
    async def close(self, sid: str | None) -> None: ...


class Sessions(PageSessions):
    """Sessions of this process; the oldest go first past `MAX_SESSIONS`."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._open: dict[str, Session] = {}

    async def open(self, admin: AdminConfig, claims: dict[str, Any] | None = None) -> tuple[str, Session]:
        while len(self._open) >= MAX_SESSIONS:
            del self._open[next(iter(self._open))]
        sid = secrets.token_urlsafe(32)
        via = "key" if claims is None else "oidc"
        session = Session(admin.id, admin.key_sha256, csrf_of(sid), self.clock() + self.ttl, via, claims)
        self._open[sid] = session
        return sid, session

    async def get(
        self, sid: str | None, admins: Mapping[str, AdminConfig], rules: tuple[ClaimRule, ...] = ()
    ) -> Session | None:
        session = self._open.get(sid or "")
        if session is None:
            return None
        ended = ended_why(session, self.clock(), admins, rules)
        if ended is None:
            return session
        del self._open[sid or ""]
        log_event("admin session ended", admin=session.admin, why=ended, via="admin-page")
        return None

    async def close(self, sid: str | None) -> None:
        self._open.pop(sid or "", None)

    def __len__(self) -> int:
        return len(self._open)
