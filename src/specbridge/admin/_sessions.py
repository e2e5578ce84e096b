"""The page's sign-in sessions: kept in this process, by a random id, each tied to the admin and the key
it signed in with.

A session is only as good as the admin behind it: every request checks that the admin still exists in
the config served now, with the same key hash. A reload that removes an admin or gives it a new key
ends its sessions at their next request (the old key no longer opens anything, and neither does a
session opened with it).
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .._logging import log_event
from ..config import AdminConfig

DEFAULT_SESSION_TTL = 8 * 3600.0
MAX_SESSIONS = 10_000


@dataclass(slots=True)
class Session:
    admin: str
    key_sha256: str  # the admin's key hash at sign-in
    csrf: str
    expires: float


class Sessions:
    """Sessions of this process; the oldest go first past `MAX_SESSIONS`."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._open: dict[str, Session] = {}

    def open(self, admin: AdminConfig) -> tuple[str, Session]:
        while len(self._open) >= MAX_SESSIONS:
            del self._open[next(iter(self._open))]
        sid = secrets.token_urlsafe(32)
        session = Session(admin.id, admin.key_sha256, secrets.token_urlsafe(32), self.clock() + self.ttl)
        self._open[sid] = session
        return sid, session

    def get(self, sid: str | None, admins: Mapping[str, AdminConfig]) -> Session | None:
        """The live session `sid` names: not expired, its admin still in `admins` with the same key."""
        session = self._open.get(sid or "")
        if session is None:
            return None
        ended = None
        if session.expires <= self.clock():
            ended = "expired"
        else:
            admin = admins.get(session.admin)
            if admin is None:
                ended = "admin removed"
            elif not hmac.compare_digest(admin.key_sha256.encode(), session.key_sha256.encode()):
                ended = "admin key changed"
        if ended is None:
            return session
        del self._open[sid or ""]
        log_event("admin session ended", admin=session.admin, why=ended, via="admin-page")
        return None

    def close(self, sid: str | None) -> None:
        self._open.pop(sid or "", None)

    def __len__(self) -> int:
        return len(self._open)
