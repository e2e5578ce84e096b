"""How many MCP sessions each client holds open on one endpoint, so abandoned ones cannot pile up.

The SDK's session manager keeps a session until the client sends DELETE or the session has been idle for
its timeout; a client that opens sessions and walks away holds about 34 KB each for that long. This
table sees every request in front of the manager: the session id the `initialize` answer hands out, each
later request for it, a DELETE, a 404 for one the manager no longer knows. A session idle longer than
the manager's timeout is gone there too, and is not counted here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import Message, Send

DEFAULT_MAX_SESSIONS_PER_CLIENT = 64
SESSION_HEADER = "mcp-session-id"


class SessionTable:
    def __init__(self, cap: int, idle_timeout: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._owner: dict[str, str | None] = {}
        self._seen: dict[str, float] = {}

    def open_count(self, client: str | None) -> int:
        now = self._clock()
        for session in [s for s, seen in self._seen.items() if now - seen > self.idle_timeout]:
            self.closed(session)
        return sum(1 for owner in self._owner.values() if owner == client)

    def full(self, client: str | None) -> bool:
        return self.open_count(client) >= self.cap

    def closed(self, session: str) -> None:
        self._owner.pop(session, None)
        self._seen.pop(session, None)

    def watch(self, send: Send, client: str | None, session: str | None) -> Send:
        """`send`, noting the session the answer opens (no `session`), or that `session` is not known."""
        if session is not None and session in self._owner:
            self._seen[session] = self._clock()

        async def watching(message: Message) -> None:
            if message["type"] == "http.response.start":
                opened = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
                if session is None and opened and message["status"] < 400:
                    self._owner[opened] = client
                    self._seen[opened] = self._clock()
                elif session is not None and message["status"] == 404:
                    self.closed(session)
            await send(message)

        return watching
