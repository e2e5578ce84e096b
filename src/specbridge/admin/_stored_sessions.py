"""The page's sign-in sessions in the store (`PageSessions`), so every instance on one store knows them:
by the SHA-256 of the cookie's value (never the value), with the admin, the admin's key hash at sign-in
and the session's end (`session_ttl` after sign-in, not pushed on by use: as in one process). The same
rules as in one process: a page load whose admin is gone or has another key ends the session (in the
store, so on every instance); sign-out deletes it. A store that cannot be reached is `StoreError`
(the page answers 503 `store-unavailable`)."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .._logging import log_event
from ..config import AdminConfig, ClaimRule
from ..store import Store, StoredSession
from ._sessions import PageSessions, Session, csrf_of, ended_why

KIND = "admin"


def _key(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()


class StoredSessions(PageSessions):
    def __init__(
        self, store: Callable[[], Awaitable[Store]], ttl: float, clock: Callable[[], float] = time.time
    ) -> None:
        self._store = store
        self.ttl = ttl
        self.clock = clock

    async def open(self, admin: AdminConfig, claims: dict[str, Any] | None = None) -> tuple[str, Session]:
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        via = "key" if claims is None else "oidc"
        data = {
            "key_sha256": admin.key_sha256,
            "via": via,
            **({"claims": claims} if claims is not None else {}),
        }
        record = StoredSession(_key(sid), KIND, admin.id, data, now, now, now + self.ttl)
        await (await self._store()).put_session(record, now)
        return sid, Session(admin.id, admin.key_sha256, csrf_of(sid), record.expires_at, via, claims)

    async def get(
        self, sid: str | None, admins: Mapping[str, AdminConfig], rules: tuple[ClaimRule, ...] = ()
    ) -> Session | None:
        if not sid or len(sid) > 256:
            return None
        store = await self._store()
        now = self.clock()
        record = await store.get_session(_key(sid), now)
        if record is None or record.kind != KIND or not isinstance(record.data, dict):
            return None
        via = "oidc" if record.data.get("via") == "oidc" else "key"
        claims = record.data.get("claims") if isinstance(record.data.get("claims"), dict) else None
        session = Session(
            record.owner, str(record.data.get("key_sha256", "")), csrf_of(sid), record.expires_at, via, claims
        )
        ended = ended_why(session, now, admins, rules)
        if ended is None:
            return session
        await store.end_session(record.id)
        log_event("admin session ended", admin=session.admin, why=ended, via="admin-page")
        return None

    async def close(self, sid: str | None) -> None:
        if sid and len(sid) <= 256:
            await (await self._store()).end_session(_key(sid))
